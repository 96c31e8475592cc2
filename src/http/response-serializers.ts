import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = SerializerSelector.SerializerFactory;
type Serializer = SerializerSelector.Serializer;

/**
 * Fastify's response serializers (fast-json-stringify), compiled once per distinct schema in the
 * process instead of once per route and status code. Nearly every route declares the same error
 * bodies for 400, 401, 403, 404 …, and compiling them was most of an app's start (1.3 s of 1.5 s
 * here); an app built again in the same process (the tests build hundreds) compiles nothing.
 *
 * A serializer depends only on its schema, the shared schemas it may refer to (`addSchema`) and
 * the serializer options, so those, as JSON, are the key. Schemas are JSON Schema documents:
 * nothing in them is lost by JSON (TypeBox's symbol-keyed markers are not read by the compiler).
 */
export function sharedSerializerFactory(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const shared = JSON.stringify([externalSchemas ?? null, options ?? null]);
    let serializers = compiled.get(shared);
    if (!serializers) {
      serializers = new Map();
      compiled.set(shared, serializers);
    }
    const cache = serializers;
    return (route) => {
      const key = JSON.stringify(route.schema ?? null);
      let serializer = cache.get(key);
      if (!serializer) {
        serializer = compile(route);
        cache.set(key, serializer);
      }
      return serializer;
    };
  };
}

/** By shared schemas and options, then by schema. Bounded by the schemas the code declares. */
const compiled = new Map<string, Map<string, Serializer>>();
