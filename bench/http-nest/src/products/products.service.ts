import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import { CreateProductDto } from './dto/create-product.dto';
import { Product } from './entities/product.entity';

/** Anonymous callers own the rows stamped with the empty owner, as in the other two apps. */
const OWNER = '';

@Injectable()
export class ProductsService {
  constructor(@InjectRepository(Product) private readonly products: Repository<Product>) {}

  async create(createProductDto: CreateProductDto) {
    const now = new Date();
    const product = this.products.create({
      ...createProductDto,
      id: randomUUID(),
      ownedBy: OWNER,
      createdBy: OWNER,
      createdOn: now,
      updatedBy: OWNER,
      updatedOn: now,
    });
    await this.products.insert(product);
    const { ownedBy: _owner, ...dto } = product;
    return dto;
  }

  async findAll(minPrice: number) {
    const pageSize = 20;
    const [items, totalItemCount] = await this.products.findAndCount({
      where: { ownedBy: OWNER, price: MoreThan(minPrice) },
      order: { price: 'DESC', id: 'DESC' },
      take: pageSize,
    });
    return { items, pageNumber: 1, pageSize, totalItemCount };
  }

  findOne(id: string) {
    return this.products.findOneBy({ id, ownedBy: OWNER });
  }

  async update(id: string, change: Partial<Product>) {
    const result = await this.products.update(
      { id, ownedBy: OWNER },
      { ...change, updatedOn: new Date() },
    );
    if (!result.affected) return null;
    return this.findOne(id);
  }

  remove(id: string) {
    return this.products.delete({ id, ownedBy: OWNER });
  }
}
