/*
 * An example for every request and response body the operations did not give one: derived
 * from the body's JSON Schema (defaults, enums, formats), so each operation in the browser
 * shows one and its snippets send a body that has the right shape.
 */
type Schema = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface MediaType {
  schema?: Schema;
  example?: unknown;
}

const FORMATS: Record<string, unknown> = {
  uuid: '6f1c2b9e-4a51-4c7e-9a0d-2b8f1e3c4d5a',
  email: 'ada@example.com',
  'date-time': '2026-11-24T10:00:00.000Z',
  date: '2026-11-24',
  uri: 'https://example.com',
  binary: '<file bytes>',
};

export function sample(schema: Schema | undefined, document: Document, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return sample(document.components?.schemas?.[name], document, depth + 1);
  }
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length) {
      const first = options.find((o) => o.type !== 'null') ?? options[0];
      return sample(first, document, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s) => sample(s as Schema, document, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [k, sample(v, document, depth + 1)]),
      );
    }
    case 'array':
      return [sample(schema.items as Schema, document, depth + 1)];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      return FORMATS[schema.format as string] ?? 'string';
    case 'null':
      return null;
    default:
      return {};
  }
}

/** Fills in `example` on every request and response body that has none. */
export function addExamples<D extends Document>(document: D): D {
  const fill = (content: Record<string, MediaType> | undefined) => {
    for (const media of Object.values(content ?? {})) {
      if (media.example === undefined) media.example = sample(media.schema, document);
    }
  };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path)) {
      fill(operation.requestBody?.content);
      for (const response of Object.values(operation.responses)) fill(response.content);
    }
  }
  return document;
}
