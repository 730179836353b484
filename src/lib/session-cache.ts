/**
 * Sessions this instance has checked lately, for reads to rely on (AUTH_CACHE_TTL_MS). Bounded in time
 * and in size. A change announced for a user (lib/auth-changes.ts: a logout, a profile or password
 * change, a deletion, a new role) drops their entries, and a check that was under way when it came is
 * not kept; whatever is not announced (an edit made directly in the database) shows within the time bound.
 */
export class SessionCache<V> {
  private readonly entries = new Map<string, { userId: string; value: V; expiresAt: number }>();
  /** The sessions kept for each user, so that forgetting a user does not scan every entry. */
  private readonly sessionsOfUser = new Map<string, Set<string>>();
  /** Counts the changes that dropped entries: a check that saw it change may have read what they changed. */
  private changes = 0;

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
    this.drop(sessionId);
    return undefined;
  }

  /** A mark to take before checking, for keep(): it tells whether a change came while the check ran. */
  mark(): number {
    return this.changes;
  }

  /** Keeps what a check found, unless a change came since `mark`; the oldest entry goes when full. */
  keep(mark: number, sessionId: string, userId: string, value: V): void {
    if (mark !== this.changes) return;
    this.drop(sessionId);
    if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value as string);
    this.entries.set(sessionId, { userId, value, expiresAt: this.now() + this.ttlMs });
    const sessions = this.sessionsOfUser.get(userId);
    if (sessions) sessions.add(sessionId);
    else this.sessionsOfUser.set(userId, new Set([sessionId]));
  }

  /** Drops every entry of the user: their sessions or their account changed. */
  forgetUser(userId: string): void {
    this.changes++;
    for (const sessionId of this.sessionsOfUser.get(userId) ?? []) this.entries.delete(sessionId);
    this.sessionsOfUser.delete(userId);
  }

  /** Drops every entry: changes may have gone unheard (the channel that carries them was down). */
  forgetAll(): void {
    this.changes++;
    this.entries.clear();
    this.sessionsOfUser.clear();
  }

  private drop(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (!entry) return;
    this.entries.delete(sessionId);
    const sessions = this.sessionsOfUser.get(entry.userId);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.sessionsOfUser.delete(entry.userId);
  }
}
