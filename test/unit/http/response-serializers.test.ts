import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { sharedSerializerFactory } from '../../../src/http/response-serializers.ts';

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
const Thing = { $id: 'Thing', type: 'object', properties: { name: { type: 'string' } } };
const thingList = { type: 'object', properties: { items: { type: 'array', items: { $ref: 'Thing' } } } };

describe('sharedSerializerFactory', () => {
  it('compiles a schema once for every app and route that declares it', () => {
    const first = sharedSerializerFactory()({ Thing }, {});
    const second = sharedSerializerFactory()({ Thing: structuredClone(Thing) }, {});
    const a = first(route(thingList));
    expect(second({ ...route(structuredClone(thingList)), url: '/y', httpStatus: '404' })).toBe(a);
    // What a serializer writes follows its schema: fields it does not declare are left out.
    expect(a({ items: [{ name: 'n', secret: 's' }], other: 1 })).toBe('{"items":[{"name":"n"}]}');
  });

  it('keeps serializers apart when the schema, the shared schemas or the options differ', () => {
    const plain = sharedSerializerFactory()({ Thing }, {});
    const serializer = plain(route(thingList));
    expect(plain(route({ ...thingList, required: ['items'] }))).not.toBe(serializer);
    const wider = { ...Thing, properties: { ...Thing.properties, size: { type: 'integer' } } };
    const other = sharedSerializerFactory()({ Thing: wider }, {})(route(thingList));
    expect(other).not.toBe(serializer);
    expect(other({ items: [{ name: 'n', size: 2 }] })).toBe('{"items":[{"name":"n","size":2}]}');
    expect(sharedSerializerFactory()({ Thing }, { rounding: 'ceil' })(route(thingList))).not.toBe(serializer);
  });

  it('serves as Fastify’s serializer compiler, shared schemas included', async () => {
    const app = Fastify({
      schemaController: { compilersFactory: { buildSerializer: sharedSerializerFactory() } },
    });
    app.addSchema(Thing);
    app.get('/things', { schema: { response: { 200: thingList } } }, async () => ({
      items: [{ name: 'a', hidden: true }],
    }));
    const response = await app.inject({ method: 'GET', url: '/things' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('{"items":[{"name":"a"}]}');
    await app.close();
  });
});
