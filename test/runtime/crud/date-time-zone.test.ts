// `date` fields read back as the stored day whatever the time zone of the Node process: west of UTC
// a Date at UTC midnight is the previous day in local time, east of it local midnight is the
// previous day in UTC. Checked on the readers alone and through MySQL with the generated app's
// knexfile (timezone 'Z') and the test harness's settings.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { defineEntityTable, insertEntity, loadEntity } from '@slicekit/runtime/crud';
import {
  defineListResource,
  parseListQuery,
  runListQuery,
  type JsonSchema,
} from '@slicekit/runtime/list-query';
import { knexConfig } from '../../../templates/app/src/knexfile.js';
import { useDatabase } from '../../support/services.js';

class Holiday {
  id: string;
  name: string;
  day: string;

  constructor(id: string, name: string, day: string) {
    this.id = id;
    this.name = name;
    this.day = day;
  }
}

const holidays = defineEntityTable({
  table: 'holidays',
  entity: Holiday,
  fields: { id: 'uuid', name: 'string', day: 'date' },
  audited: false,
  owned: false,
});

const holidayDto: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    day: { type: 'string', format: 'date' },
  },
  required: ['id', 'name', 'day'],
  additionalProperties: false,
};

const holidayList = defineListResource<{ id: string; name: string; day: string }>({
  table: 'holidays',
  dto: holidayDto,
  audited: false,
});

const NEW_YEAR = '6f1c2f7e-3c1a-4e0b-9a51-2d8c5e4b7a10';

/** Runs `work` with the process in time zone `zone`, then restores the zone it had. */
async function inZone<T>(zone: string, work: () => Promise<T> | T): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

const WEST = 'America/Los_Angeles';
const EAST = 'Asia/Tokyo';

describe('date fields in a process west or east of UTC', () => {
  for (const zone of [WEST, EAST]) {
    it(`reads a driver's Date at UTC or local midnight as the stored day (${zone})`, async () => {
      await inZone(zone, () => {
        const utcMidnight = new Date(Date.UTC(2024, 0, 1));
        const localMidnight = new Date(2024, 0, 1);
        expect(new Date().getTimezoneOffset()).not.to.equal(0);
        for (const day of [utcMidnight, localMidnight, '2024-01-01']) {
          const row = { id: NEW_YEAR, name: 'New Year', day };
          expect(holidays.fromRow(row).day, String(day)).to.equal('2024-01-01');
        }
      });
    });
  }

  describe('on MySQL', () => {
    const db = useDatabase('mysql');
    let app: Knex | undefined;
    before(async () => {
      await db.knex.schema.createTable('holidays', (t) => {
        t.uuid('id').primary();
        t.string('name').notNullable();
        t.date('day').notNullable();
      });
      app = knexFactory(knexConfig(db.url));
    });
    after(async () => {
      await app?.destroy();
    });

    it(`round-trips a date through the generated app's knexfile in ${WEST}`, async () => {
      await inZone(WEST, async () => {
        const knex = app!;
        await insertEntity(knex, holidays, new Holiday(NEW_YEAR, 'New Year', '2024-01-01'), '');
        expect((await loadEntity(knex, holidays, NEW_YEAR)).day).to.equal('2024-01-01');
        const page = await runListQuery(knex, holidayList, parseListQuery(holidayList, {}));
        expect(page.items.map((h) => h.day)).to.deep.equal(['2024-01-01']);
        const filtered = await runListQuery(
          knex,
          holidayList,
          parseListQuery(holidayList, { filter: 'day:Equal:2024-01-01' }),
        );
        expect(filtered.items).to.have.length(1);
      });
    });

    it(`reads the same day through the test harness's connection in ${WEST} and ${EAST}`, async () => {
      for (const zone of [WEST, EAST]) {
        await inZone(zone, async () => {
          expect((await loadEntity(db.knex, holidays, NEW_YEAR)).day, zone).to.equal('2024-01-01');
          const page = await runListQuery(db.knex, holidayList, parseListQuery(holidayList, {}));
          expect(
            page.items.map((h) => h.day),
            zone,
          ).to.deep.equal(['2024-01-01']);
        });
      }
    });
  });
});
