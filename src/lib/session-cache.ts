/**
 * Sessions this instance has checked lately, for reads to rely on (AUTH_CACHE_TTL_MS). Bounded in time
 * and in size. Whatever happens elsewhere (a logout on another instance, `npm run make-admin`, an admin's
 * deletion) shows within the time bound; a user's own write on this instance drops their entries as soon
 * as it ends, and a check that was under way during any such write is not kept.
 */
export class SessionCache<V> {
  private readonly entries = new Map<string, { userId: string; value: V; expiresAt: number }>();
  /** Counts the writes that dropped entries: a check that saw it change may have read what they changed. */
  private writes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** What a check of this session (of this user) found, if it was kept and is still fresh. */
  get(sessionId: string, userId: string): V | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (entry.userId === userId && entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(sessionId);
    return undefined;
  }

  /** A mark to take before checking, for keep(): it tells whether a write ended while the check ran. */
  mark(): number {
    return this.writes;
  }

  /** Keeps what a check found, unless a write ended since `mark`; the oldest entry goes when full. */
  keep(mark: number, sessionId: string, userId: string, value: V): void {
    if (mark !== this.writes) return;
    this.entries.delete(sessionId);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(sessionId, { userId, value, expiresAt: this.now() + this.ttlMs });
  }

  /** Drops every entry of the user: one of their writes (a logout, a profile or password change) ended. */
  forgetUser(userId: string): void {
    this.writes++;
    for (const [sessionId, entry] of this.entries) if (entry.userId === userId) this.entries.delete(sessionId);
  }
}
