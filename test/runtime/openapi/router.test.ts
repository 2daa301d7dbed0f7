// The router serving /openapi.json and the Swagger UI page from swagger-ui-dist.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  buildOpenApiDocument,
  openApiRouter,
  routesOf,
  toExpressPath,
} from '@slicekit/runtime/openapi';
import { productSlice } from './product-slice.js';

describe('OpenAPI router', () => {
  const document = buildOpenApiDocument([productSlice], { title: 'Shop <API>' });

  it('serves the document at /openapi.json', async () => {
    const app = express().use(openApiRouter({ document }));
    const res = await request(app).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(document)));
  });

  it('builds a lazily given document once', async () => {
    let builds = 0;
    const app = express().use(
      openApiRouter({
        document: () => {
          builds += 1;
          return document;
        },
      }),
    );
    await request(app).get('/openapi.json').expect(200);
    await request(app).get('/openapi.json').expect(200);
    expect(builds).to.equal(1);
  });

  it('serves a docs page whose scripts and styles all come from this server', async () => {
    const app = express().use(openApiRouter({ document }));
    const res = await request(app).get('/docs').expect(200);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.text).to.include('<title>Shop &#60;API&#62;</title>');
    expect(res.text).to.not.match(/https?:\/\//);
    const urls = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(urls).to.include.members([
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
      '/docs/init.js',
    ]);
    for (const url of urls) await request(app).get(url).expect(200);
    const bundle = await request(app).get('/docs/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).to.match(/javascript/);
    expect(bundle.text.length).to.be.greaterThan(100_000);
    expect(res.text).to.not.match(/<script>[^<]/);
  });

  it('points the page at the document under the router mount point', async () => {
    const app = express().use('/api', openApiRouter({ document }));
    const page = await request(app).get('/api/docs').expect(200);
    expect(page.text).to.include('src="/api/docs/swagger-ui-bundle.js"');
    const init = await request(app).get('/api/docs/init.js').expect(200);
    expect(init.text).to.include('url: "/api/openapi.json"');
  });

  it('serves nothing else of the swagger-ui-dist package', async () => {
    const app = express().use(openApiRouter({ document }));
    await request(app).get('/docs/package.json').expect(404);
    await request(app).get('/docs/index.html').expect(404);
  });

  it('serves no page when docsPath is false', async () => {
    const app = express().use(openApiRouter({ document, docsPath: false }));
    await request(app).get('/docs').expect(404);
    await request(app).get('/openapi.json').expect(200);
  });

  it('lists routes an Express app answers on, once mapped with toExpressPath', async () => {
    const app = express();
    for (const route of routesOf(document)) {
      const [method, path] = route.split(' ') as [string, string];
      const register = app[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'].bind(app);
      register(toExpressPath(path), (_req, res) => void res.json({ route }));
    }
    const id = '5b4c0a52-1d1f-4d8e-9b7e-2f7f0f4f3a10';
    for (const route of routesOf(document)) {
      const [method, path] = route.split(' ') as [string, string];
      const agent = request(app);
      const send = agent[method.toLowerCase() as 'get'].bind(agent);
      const res = await send(path.replace('{id}', id)).expect(200);
      expect(res.body.route).to.equal(route);
    }
  });
});
