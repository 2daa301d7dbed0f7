// The NestJS peer of bench/http.ts: a project from `nest new` with `nest g resource products`
// (REST, CRUD entry points), filled in with TypeORM on the benchmark's products table. This file
// and the others in bench/http-nest/src replace the generated ones of the same name.
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.setGlobalPrefix('v1');
  app.enableShutdownHooks();
  await app.listen(process.env.PORT ?? 3000, '127.0.0.1');
}
void bootstrap();
