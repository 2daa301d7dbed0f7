import { Column, Entity, PrimaryColumn } from 'typeorm';

const decimal = { to: (value: number) => value, from: (value: string) => Number(value) };

@Entity('products')
export class Product {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ length: 150 })
  name: string;

  @Column({ type: 'decimal', precision: 12, scale: 2, transformer: decimal })
  price: number;

  @Column({ name: 'is_discontinued', default: false })
  isDiscontinued: boolean;

  @Column({ name: 'owned_by', select: false, default: '' })
  ownedBy: string;

  @Column({ name: 'created_by', default: '' })
  createdBy: string;

  @Column({ name: 'created_on', type: 'timestamp', precision: 3 })
  createdOn: Date;

  @Column({ name: 'updated_by', default: '' })
  updatedBy: string;

  @Column({ name: 'updated_on', type: 'timestamp', precision: 3 })
  updatedOn: Date;
}
