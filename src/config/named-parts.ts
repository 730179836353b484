/**
 * Settings made of named parts, `name=value,name=value` (SHUTDOWN_TIMEOUTS, HTTP_TIMEOUTS, PUBLIC_READS's
 * cache directives): one reader, so that they all take the same form. Names are among `names`, in any case,
 * each at most once; empty parts are skipped. Each setting reads the values it gets in its own unit.
 */
export type NamedParts<Name extends string> =
  { ok: true; values: Partial<Record<Name, string>> } | { ok: false; part: string };

export function readNamedParts<Name extends string>(text: string, names: readonly Name[]): NamedParts<Name> {
  const values: Partial<Record<Name, string>> = {};
  for (const part of text.split(',').map((item) => item.trim())) {
    if (part === '') continue;
    const separator = part.indexOf('=');
    const given = part.slice(0, separator).trim().toLowerCase();
    const name = separator > 0 ? names.find((candidate) => candidate.toLowerCase() === given) : undefined;
    if (name === undefined || values[name] !== undefined) return { ok: false, part };
    values[name] = part.slice(separator + 1).trim();
  }
  return { ok: true, values };
}
