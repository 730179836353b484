/**
 * Facts shared by every resource's definition: the page bounds of the lists. The bottom layer of src/:
 * it imports nothing of the app, so models, services, validators, middlewares and the OpenAPI document
 * may all read it.
 *
 * `maxOffset` is ours, not the spec's (which gives only "minimum 0"): an offset is handed to the
 * database as a skip, so an unbounded one is work without end, and beyond 2^53 it is not even the
 * number sent (a lossy double).
 */
export const PAGINATION = {
  defaultLimit: 20,
  maxLimit: 50,
  defaultOffset: 0,
  maxOffset: 100_000,
} as const;
