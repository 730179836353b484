/** A configuration mistake: start-up stops with its message, one line naming the variable. */
export class ConfigError extends Error {}
