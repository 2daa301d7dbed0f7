// The nested routes a slice maps for its references: under each referenced entity, the
// one-to-many of this one (`GET /v1/customers/{id}/orders` in the Order slice), and the table
// imports they need.
import type { EntityModel } from '../../model/types.js';

/** One nested route: where it lives, its parent and the column naming the parent. */
export interface NestedRoute {
  /** The Express route, as the router mounted at /v1 sees it: `/customers/:id/orders`. */
  route: string;
  /** `/v1/customers/{id}/orders` */
  docPath: string;
  parentEntity: string;
  parentPath: string;
  segment: string;
  parentTable: string;
  /** `orders.customer_id` */
  foreignKey: string;
}

export function nestedRoutes(model: EntityModel) {
  const routes = (model.relations?.references ?? []).map(({ field, target }): NestedRoute => {
    const segment = field.reference!.inverse.kebab;
    return {
      route: `/${target.resource}/:id/${segment}`,
      docPath: `/v1/${target.resource}/{id}/${segment}`,
      parentEntity: target.name.pascal,
      parentPath: `/v1/${target.resource}`,
      segment,
      parentTable: `${target.name.camel}Table`,
      foreignKey: `${model.table}.${field.column}`,
    };
  });
  const own = `${model.name.camel}Table`;
  const parentImports = (model.relations?.references ?? [])
    .filter(({ target }) => target.name.pascal !== model.name.pascal)
    .map(({ target }) => ({
      name: `${target.name.camel}Table`,
      path: `../${target.folder}/${target.name.kebab}.table.js`,
    }))
    .filter((i, n, all) => all.findIndex((o) => o.name === i.name) === n)
    .sort((a, b) => a.path.localeCompare(b.path));
  return {
    nestedRoutes: routes,
    parentImports,
    importsOwnTable: model.owned || model.softDelete || routes.some((r) => r.parentTable === own),
  };
}
