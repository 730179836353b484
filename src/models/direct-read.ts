/**
 * Reads straight on the driver, for the hot read paths (a page of blogs, a blog by its slug, the authors
 * and likes shown with them, the feeds). Mongoose's query layer (casting, middleware, its collection
 * wrapper) cost about half as much CPU again as the driver's own work on such a page
 * (docs/performance.md, "Found in the profile"); these reads skip it. So their filters, sorts and
 * projections must already be in the driver's terms (ObjectIds, Dates, projection objects). Every read
 * gets the request's read deadline, as read-deadline.ts gives Mongoose's reads. A find's documents come
 * as raw BSON and are decoded here once: with command events on (MONGODB_COMMAND_METRICS) the driver
 * would otherwise decode a reply in full for its event and the cursor decode it again.
 */
import { mongo, type Connection } from 'mongoose';
import { requestReadDeadline } from './read-deadline';

type Filter = mongo.Filter<mongo.Document>;
export type DirectFindOptions = Pick<mongo.FindOptions, 'sort' | 'skip' | 'limit'> & { projection: Projection };
export type Projection = Record<string, 0 | 1>;

/** A projection in Mongoose's words ("title slug content") as the driver's. */
export const projectionOf = (fields: string): Projection =>
  Object.fromEntries(fields.split(' ').map((field) => [field, 1]));

/** The distinct ids among stored references (ObjectIds by their schemas), for an `$in`; nulls left out. */
export const distinctIds = (ids: unknown[]): mongo.ObjectId[] => [
  ...new Map(ids.filter((id) => id != null).map((id) => [String(id), id as mongo.ObjectId])).values(),
];

/** What these reads need of a model. */
interface DirectModel {
  db: Connection;
  collection: { collectionName: string };
}

/** The driver's collections by database: a new Db after the watchdog reopens the connection has its own. */
const collections = new WeakMap<mongo.Db, Map<string, mongo.Collection>>();

/** The model's driver collection, on the connection open now. */
function collectionOf({ db: connection, collection: { collectionName } }: DirectModel): mongo.Collection {
  const db = connection.db;
  // what Mongoose says with bufferCommands off, as a driver error the error handler answers 503 for
  if (!db) throw new mongo.MongoNotConnectedError(`${collectionName}: not connected to MongoDB`);
  let named = collections.get(db);
  if (!named) collections.set(db, (named = new Map()));
  let collection = named.get(collectionName);
  if (!collection) named.set(collectionName, (collection = db.collection(collectionName)));
  return collection;
}

export async function findDirect<T = Record<string, unknown>>(
  model: DirectModel,
  filter: Filter,
  options: DirectFindOptions,
): Promise<T[]> {
  const batch = await collectionOf(model)
    .find(filter, { ...options, ...requestReadDeadline(), raw: true })
    .toArray();
  return batch.map((bytes) => mongo.BSON.deserialize(bytes as unknown as Uint8Array) as T);
}

export function countDirect(model: DirectModel, filter: Filter): Promise<number> {
  return collectionOf(model).countDocuments(filter, requestReadDeadline());
}

/** One atomic `$inc` on the first document the filter finds, returned as it is after it with these fields; a write, so the full deadline. */
export function incrementDirect(
  model: DirectModel,
  filter: Filter,
  increments: Record<string, number>,
  projection: Projection,
): Promise<Record<string, unknown> | null> {
  return collectionOf(model).findOneAndUpdate(filter, { $inc: increments }, { returnDocument: 'after', projection });
}
