// `npm run seed`: runs every seed in `seeds/` (sample rows for development), then exits.
import { basename } from 'node:path';
import { createKnex } from './db.js';
import { seeds } from './knexfile.js';
import { createLogger } from './logger.js';

const logger = createLogger();
const knex = createKnex();
try {
  const [files] = await knex.seed.run(seeds);
  logger.info({ seeds: files.map((file) => basename(file)) }, `seeds: ran ${files.length}`);
} finally {
  await knex.destroy();
}
