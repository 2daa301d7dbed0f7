import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Product } from './products/entities/product.entity';
import { ProductsModule } from './products/products.module';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/http_bench_nest';
const mysql = url.startsWith('mysql:');

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: mysql ? 'mysql' : 'postgres',
      url,
      entities: [Product],
      // The schema exists already (the generated app's migration created it).
      synchronize: false,
      // Ten connections, as the other two apps have.
      ...(mysql ? { connectionLimit: 10, timezone: 'Z' } : { poolSize: 10 }),
    }),
    ProductsModule,
  ],
})
export class AppModule {}
