/**
 * What this instance read lately about users, for reads to rely on (AUTH_CACHE_TTL_MS): the session
 * checks (middlewares/authenticate.ts, one entry a session) and the authors that blogs show
 * (services/blog.service.ts, one entry a user). Bounded in time and in size. A change announced for a user
 * (lib/auth-changes.ts: a logout, a profile or password change, a deletion, a new role) drops their
 * entries, and a read that was under way when it came is not kept; whatever is not announced (an edit made
 * directly in the database) shows within the time bound.
 */
import type { AuthChanges } from './auth-changes';

export class UserCache<V> {
  private readonly entries = new Map<string, { userId: string; value: V; expiresAt: number }>();
  /** The keys kept for each user, so that forgetting a user does not scan every entry. */
  private readonly keysOfUser = new Map<string, Set<string>>();
  /** Counts the changes that dropped entries: a read that saw it change may have read what they changed. */
  private changes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** What was kept under this key for this user, if it is still fresh. */
  get(key: string, userId: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.userId === userId && entry.expiresAt > this.now()) return entry.value;
    this.drop(key);
    return undefined;
  }

  /** A mark to take before reading, for keep(): it tells whether a change came while the read ran. */
  mark(): number {
    return this.changes;
  }

  /** Keeps what a read found, unless a change came since `mark`; the oldest entry goes when full. */
  keep(mark: number, key: string, userId: string, value: V): void {
    if (mark !== this.changes) return;
    this.drop(key);
    if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value as string);
    this.entries.set(key, { userId, value, expiresAt: this.now() + this.ttlMs });
    const keys = this.keysOfUser.get(userId);
    if (keys) keys.add(key);
    else this.keysOfUser.set(userId, new Set([key]));
  }

  /** Drops every entry of the user: their sessions or their account changed. */
  forgetUser(userId: string): void {
    this.changes++;
    for (const key of this.keysOfUser.get(userId) ?? []) this.entries.delete(key);
    this.keysOfUser.delete(userId);
  }

  /** Drops every entry: changes may have gone unheard (the channel that carries them was down). */
  forgetAll(): void {
    this.changes++;
    this.entries.clear();
    this.keysOfUser.clear();
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.keysOfUser.get(entry.userId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOfUser.delete(entry.userId);
  }
}

/** A cache for `ttlMs` (none when 0) that the announced changes void. */
export function userCacheFor<V>(ttlMs: number, authChanges: AuthChanges): UserCache<V> | undefined {
  if (ttlMs <= 0) return undefined;
  const cache = new UserCache<V>(ttlMs);
  authChanges.listen(cache);
  return cache;
}
