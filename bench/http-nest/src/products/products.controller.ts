import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { CreateProductDto } from './dto/create-product.dto';
import { UpdateProductDto } from './dto/update-product.dto';
import { ProductsService } from './products.service';

@Controller('products')
export class ProductsController {
  constructor(private readonly productsService: ProductsService) {}

  @Post()
  create(@Body() createProductDto: CreateProductDto) {
    return this.productsService.create(createProductDto);
  }

  @Get()
  findAll(@Query('minPrice') minPrice?: string) {
    return this.productsService.findAll(Number(minPrice ?? 0));
  }

  @Get(':id')
  async findOne(@Param('id') id: string) {
    return found(await this.productsService.findOne(id));
  }

  @Put(':id')
  async update(@Param('id') id: string, @Body() updateProductDto: UpdateProductDto) {
    return found(await this.productsService.update(id, { price: updateProductDto.price }));
  }

  @Post(':id/approval')
  @HttpCode(200)
  async approve(@Param('id') id: string, @Body() body: { byUser: string }) {
    return found(await this.productsService.update(id, { updatedBy: body.byUser }));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string) {
    await this.productsService.remove(id);
  }
}

function found<T>(value: T | null): T {
  if (value === null) throw new NotFoundException();
  return value;
}
