/**
 * Facts shared by every resource's definition: the field builders, the ids and times every view
 * carries, and the page bounds of the lists. The bottom layer of src/: it imports only libraries and
 * other src/schemas files, so models, services, validators, middlewares and the OpenAPI document may
 * all read it.
 *
 * A resource's file (blog.ts, comment.ts, user.ts, auth.ts) says each field once, as a TypeBox schema:
 * the same object is the JSON Schema the document serves and, through `Static<>`, the TypeScript type
 * of the view the services return. A request field also carries its express-validator rules as data
 * (checkSchema's ParamSchema, checked in key order), built from the same bounds and label; the
 * validators attach only the steps that need a service (sanitizing content, decoding a banner).
 *
 * `maxOffset` is ours, not the spec's (which gives only "minimum 0"): an offset is handed to the
 * database as a skip, so an unbounded one is work without end, and beyond 2^53 it is not even the
 * number sent (a lossy double).
 */
import {
  Type,
  type Static,
  type StringOptions,
  type TArray,
  type TInteger,
  type TObject,
  type TSchema,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';
import type { ParamSchema, Schema } from 'express-validator';

export const PAGINATION = {
  defaultLimit: 20,
  maxLimit: 50,
  defaultOffset: 0,
  maxOffset: 100_000,
} as const;

/**
 * An optional query parameter given at most once, as a string: `?permanent=false&permanent=false` arrives
 * as an array, which standard validators would check item by item and let through, and which is truthy.
 */
export const singleQuery = (label: string): ParamSchema => ({
  optional: true,
  isArray: { negated: true, errorMessage: `${label} must be given once`, bail: true },
  isString: { errorMessage: `${label} must be a string`, bail: true },
});

/** An integer query parameter of a page, given at most once; absent takes the default. */
function pageQuery(label: string, minimum: number, maximum: number, defaultValue: number): Field<TInteger> {
  return {
    schema: Type.Integer({ minimum, maximum, default: defaultValue }),
    rules: {
      ...singleQuery(label),
      isInt: {
        options: { min: minimum, max: maximum },
        errorMessage: `${label} must be an integer between ${minimum} and ${maximum}`,
      },
      toInt: true,
    },
  };
}

/** `limit` 1..50 and `offset` 0..100,000 as integers; controllers apply the defaults (20, 0) with services/pagination.ts pageOf. */
export const PAGE_QUERY = {
  limit: pageQuery('Limit', 1, PAGINATION.maxLimit, PAGINATION.defaultLimit),
  offset: pageQuery('Offset', 0, PAGINATION.maxOffset, PAGINATION.defaultOffset),
};

/** A component of the document by name, typed as the schema it stands for. */
export const componentRef = <T extends TSchema>(name: string, _schema: T): TUnsafe<Static<T>> =>
  Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${name}` });

/** What a service hands to the JSON serializer for an id or a time: a string once sent. */
export type IdValue = string | { toHexString(): string };
export type TimeValue = string | Date;

export const ObjectIdSchema = Type.Unsafe<IdValue>({
  type: 'string',
  pattern: '^[0-9a-fA-F]{24}$',
  description: 'A MongoDB ObjectId: 24 hexadecimal digits',
});
export const DateTimeSchema = Type.Unsafe<TimeValue>({ type: 'string', format: 'date-time' });
export const ObjectIdRef = componentRef('ObjectId', ObjectIdSchema);
export const DateTimeRef = componentRef('DateTime', DateTimeSchema);

/** A string enum as JSON Schema writes it (`enum`, not TypeBox's union of literals). */
export const stringEnum = <const V extends readonly string[]>(values: V, options: StringOptions = {}) =>
  Type.Unsafe<V[number]>({ ...options, type: 'string', enum: [...values] });

/** A paginated wrapper: `{limit, offset, total, <items>: [...]}`. */
export function pageOf<K extends string, T extends TSchema>(items: K, item: T) {
  const list = { [items]: Type.Array(item, { maxItems: PAGINATION.maxLimit }) } as { [P in K]: TArray<T> };
  return Type.Object(
    {
      limit: Type.Integer({ minimum: 1, maximum: PAGINATION.maxLimit }),
      offset: Type.Integer({ minimum: 0, maximum: PAGINATION.maxOffset }),
      total: Type.Integer({ minimum: 0, description: 'How many exist in all, across pages' }),
      ...list,
    },
    { additionalProperties: false },
  );
}

/** How viewOf() picks one field of a view: an inline object, or an array of them, is picked again inside. */
interface FieldPlan {
  key: string;
  object?: TObject;
  items?: TObject;
}

/** Each view's fields, worked out once: a page shapes hundreds of objects by the same few views. */
const plans = new WeakMap<TObject, FieldPlan[]>();

function planOf(view: TObject): FieldPlan[] {
  let plan = plans.get(view);
  if (!plan) {
    plan = Object.entries(view.properties as Record<string, TSchema>).map(([key, schema]) => ({
      key,
      object: schema.type === 'object' && schema.properties ? (schema as TObject) : undefined,
      items: schema.type === 'array' && schema.items?.properties ? (schema.items as TObject) : undefined,
    }));
    plans.set(view, plan);
  }
  return plan;
}

/**
 * A view as the API shows it, built from a document's toJSON result or a lean read alike: exactly the
 * view's fields in the view's order (inline objects such as a banner, and arrays of them, picked the same
 * way, so a storage key or __v never leaves), `defaults` for fields older records may lack, `given` for what the caller
 * shaped already (an author as the viewer may see them).
 */
export function viewOf<T extends TObject>(
  view: T,
  source: Record<string, unknown>,
  defaults: Record<string, unknown> = {},
  given: Record<string, unknown> = {},
): Static<T> {
  const picked: Record<string, unknown> = {};
  for (const { key, object, items } of planOf(view)) {
    const value = source[key];
    if (key in given) picked[key] = given[key];
    else if (object && value && typeof value === 'object')
      picked[key] = viewOf(object, value as Record<string, unknown>);
    else if (items && Array.isArray(value))
      picked[key] = (value as Record<string, unknown>[]).map((item) => viewOf(items, item));
    else picked[key] = value ?? defaults[key];
  }
  return picked as Static<T>;
}

/** The names of a view's fields, in the order responses carry them. */
export const keysOf = (view: TObject): string[] => Object.keys(view.properties);

/** The fields every response of a view carries (optional ones left out), in order. */
export const requiredKeysOf = (view: TObject): string[] => keysOf(view).filter((key) => view.required?.includes(key));

// ---- request fields -------------------------------------------------------------------------------

/** One request field said once: its JSON Schema (document, types) and its express-validator rules (checkSchema). */
export interface Field<T extends TSchema = TSchema> {
  schema: T;
  rules: ParamSchema;
}

/**
 * What a text field that must say something holds at least one of: a character that is not a space, a
 * control character or an invisible one (the zero-width space, the soft hyphen, the byte order mark).
 * Trimming removes only spaces, so "\u200b" alone would otherwise pass as a title. Written without `\p{…}`,
 * so the document's pattern reads the same in every regex dialect (the fuzzer's is Python's).
 */
export const NOT_BLANK = '[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u200B-\\u200F\\u2060-\\u2064\\uFEFF]';
const VISIBLE = new RegExp(NOT_BLANK);

/**
 * A body field that must be present and a string; trimmed unless `trim` is false (passwords, roles);
 * then `rules`, in order.
 */
export function stringField<T extends TSchema>(
  label: string,
  schema: T,
  rules: ParamSchema = {},
  options: { trim?: boolean } = {},
): Field<T> {
  return {
    schema,
    rules: {
      exists: { options: { values: 'null' }, errorMessage: `${label} is required`, bail: true },
      isString: { errorMessage: `${label} must be a string`, bail: true },
      ...(options.trim === false ? {} : { trim: true }),
      ...rules,
    },
  };
}

/** The same field, optional: it may be absent, and when present passes every check. */
export function optional<T extends TSchema>({ schema, rules }: Field<T>) {
  const { exists: _exists, ...rest } = rules;
  return { schema: Type.Optional(schema), rules: { optional: true, ...rest } as ParamSchema };
}

/** What a length check says: "1 to 180", "at most 50", "at least 8" characters. */
export function lengthMessage(label: string, { minLength, maxLength }: { minLength?: number; maxLength?: number }) {
  if (minLength !== undefined && maxLength !== undefined)
    return `${label} must be ${minLength} to ${maxLength} characters`;
  if (maxLength !== undefined) return `${label} must be at most ${maxLength} characters`;
  return `${label} must be at least ${minLength} characters`;
}

/**
 * A trimmed text field with its bounds, said once for the document (minLength, maxLength, and "not
 * blank" when at least one character is needed) and the validator (isLength). `bail` stops at a wrong
 * length before `then`'s checks.
 */
export function textField(
  label: string,
  json: StringOptions & { minLength?: number; maxLength?: number },
  options: { bail?: boolean; then?: ParamSchema } = {},
): Field<TString> {
  const { minLength, maxLength } = json;
  const pattern = json.pattern ?? (minLength ? NOT_BLANK : undefined);
  return stringField(label, Type.String({ ...json, ...(pattern ? { pattern } : {}) }), {
    isLength: {
      options: { min: minLength, max: maxLength },
      errorMessage: lengthMessage(label, { minLength, maxLength }),
      ...(options.bail ? { bail: true } : {}),
    },
    ...(pattern === NOT_BLANK
      ? { matches: { options: [VISIBLE], errorMessage: `${label} must hold a visible character`, bail: true } }
      : {}),
    ...options.then,
  });
}

/** A string field that must be one of `values`. */
export function oneOfField<const V extends readonly string[]>(
  label: string,
  values: V,
  json: StringOptions = {},
  options: { trim?: boolean; message?: string; bail?: boolean; then?: ParamSchema } = {},
) {
  return stringField(
    label,
    stringEnum(values, json),
    {
      isIn: {
        options: [[...values]],
        errorMessage: options.message ?? `${label} must be one of: ${values.join(', ')}`,
        ...(options.bail ? { bail: true } : {}),
      },
      ...options.then,
    },
    { trim: options.trim },
  );
}

/** A field the document describes and the validators check by themselves (an uploaded file). */
export const documentedField = <T extends TSchema>(schema: T): Field<T> => ({ schema, rules: {} });

/**
 * A request body said once: its JSON Schema (no other field allowed), the rules of each field for
 * express-validator's checkSchema, and the names of its fields in the order they are checked (the
 * unknown-field check lists them so).
 */
export function bodyOf<F extends Record<string, Field>>(fields: F, options: { description?: string } = {}) {
  const names = Object.keys(fields);
  const schemas = Object.fromEntries(names.map((name) => [name, fields[name].schema])) as {
    [K in keyof F]: F[K]['schema'];
  };
  return {
    fields: names,
    schema: Type.Object(schemas, { ...options, additionalProperties: false }),
    rules: Object.fromEntries(names.map((name) => [name, fields[name].rules])) as Schema,
  };
}
