/**
 * Changes to what a session check finds: a logout, a password or profile change, a deletion, a new role.
 * The services that make them announce the user once the change is stored and before the request is
 * answered; listeners (the caches of session checks and authors, lib/user-cache.ts) drop what they kept for that
 * user. In one process the announcement is heard at once; with Redis (lib/redis.ts) every instance
 * subscribed to its channel hears it too.
 */
export interface AuthChangeListener {
  forgetUser(userId: string): void;
  /** Changes may have been missed (the channel was down): nothing kept can be trusted any more. */
  forgetAll(): void;
}

export interface AuthChanges {
  /** Tells every listener, here and on other instances, that this user's sessions or account changed. */
  announce(userId: string): Promise<void>;
  listen(listener: AuthChangeListener): void;
}

/** Listeners of this process, told at once. */
export class LocalAuthChanges implements AuthChanges {
  private readonly listeners: AuthChangeListener[] = [];

  listen(listener: AuthChangeListener): void {
    this.listeners.push(listener);
  }

  async announce(userId: string): Promise<void> {
    this.heard(userId);
  }

  /** Tells this process's listeners of a change, announced here or heard from another instance. */
  heard(userId: string): void {
    for (const listener of this.listeners) listener.forgetUser(userId);
  }

  /** Tells this process's listeners that changes may have been missed. */
  missedSome(): void {
    for (const listener of this.listeners) listener.forgetAll();
  }
}
