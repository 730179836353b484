/**
 * A connection string's host list, read as the driver will read it at connect: by
 * mongodb-connection-string-url (the driver's own parser), then each host as a URL's host and port
 * (the driver's HostAddress). Without this, a malformed host (`[bad`, `host:99999`) passes the
 * configuration and fails only at connect, in words that do not name MONGODB_URI. Building a
 * MongoClient here would check the same, but the driver then prints warnings of its own.
 */
import { ConnectionString } from 'mongodb-connection-string-url';

/** A host is a Unix socket's path (`%2Ftmp%2Fmongodb-27017.sock`), or a name or [IPv6] with an optional port. */
const readableHost = (host: string) =>
  host.endsWith('.sock') || URL.canParse(`mongodb://${host.replaceAll(' ', '%20')}`);

/**
 * Whether the driver can read the hosts of `uri`. The caller's message must not quote the string
 * or a host: a password with an unescaped `@` or `/` splits into the host list.
 */
export function hasReadableHosts(uri: string): boolean {
  try {
    return new ConnectionString(uri).hosts.every(readableHost);
  } catch {
    return false;
  }
}
