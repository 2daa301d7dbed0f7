export class CreateProductDto {
  name: string;
  price: number;
}
