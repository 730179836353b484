/**
 * Admin bootstrap for operators: promotes an existing account to admin.
 *
 *   npm run make-admin -- ada@example.com
 *
 * Any email given here is promoted, whitelisted in ADMIN_EMAILS or not: whoever can run this against the
 * database is the operator, and ADMIN_EMAILS only governs who may *register* as admin through the API.
 * The account must exist (register it first). The new role applies to sessions already open too: at once
 * on admin routes; on other reads, at once with REDIS_URL (the change is announced there to every
 * instance), else within AUTH_CACHE_TTL_MS (docs/performance.md).
 * It uses MONGODB_URI, or, without it, the local development database under .data/ (stop the API first:
 * the local database takes one process at a time).
 */
import { ConfigError } from '../config';
import { DEVELOPMENT_SECRETS_FILE, loadProcessConfig } from '../config/process';
import { announceAuthChangeOnce } from '../lib/redis';
import { UserModel } from '../models/user.model';
import { canonicalEmail } from '../schemas/user';
import { withCommandDatabase } from './database';

const USAGE = 'usage: npm run make-admin -- <email of an existing account>';

/** Promotes the account; `announce` tells the running instances, which may have cached its old role. */
export async function makeAdmin(email: string, announce: (userId: string) => Promise<void>): Promise<string> {
  const user = await UserModel.findOne({ email: canonicalEmail(email.trim()) });
  if (!user)
    throw new Error(
      `no account with the email ${email}: register it first (POST /api/v1/auth/register), then run this again`,
    );
  if (user.role === 'admin') return `${user.email} is already an admin`;
  await UserModel.updateOne({ _id: user._id }, { $set: { role: 'admin' } });
  await announce(String(user._id));
  return `${user.email} (${user.username}) is now an admin`;
}

async function main(argv: string[]): Promise<void> {
  const email = argv[0];
  if (!email || argv.length > 1 || !email.includes('@')) throw new Error(USAGE);
  const { config } = loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
  const { redisUrl } = config;
  const announce = async (userId: string) => {
    if (redisUrl && !(await announceAuthChangeOnce(redisUrl, userId)))
      process.stderr.write(
        'make-admin: Redis did not take the announcement; instances see the new role within AUTH_CACHE_TTL_MS\n',
      );
  };
  const said = await withCommandDatabase(config, () => makeAdmin(email, announce));
  process.stdout.write(`${said}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `make-admin: ${error instanceof ConfigError ? 'configuration error: ' : ''}${message.split('\n')[0]}\n`,
    );
    process.exit(1);
  },
);
