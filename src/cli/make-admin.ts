/**
 * Admin bootstrap for operators: promotes an existing account to admin.
 *
 *   npm run make-admin -- ada@example.com
 *
 * Any email given here is promoted, whitelisted in ADMIN_EMAILS or not: whoever can run this against the
 * database is the operator, and ADMIN_EMAILS only governs who may *register* as admin through the API.
 * The account must exist (register it first). The new role applies at once, to sessions already open too.
 * It uses MONGODB_URI, or, without it, the local development database under .data/ (stop the API first:
 * the local database takes one process at a time).
 */
import { ConfigError } from '../config';
import { DEVELOPMENT_DATA_DIR, DEVELOPMENT_SECRETS_FILE, loadProcessConfig } from '../config/process';
import { startLocalDatabase, type LocalDatabase } from '../dev/local-database';
import { connectDatabase, disconnectDatabase } from '../lib/database';
import { UserModel } from '../models/user.model';

const USAGE = 'usage: npm run make-admin -- <email of an existing account>';

export async function makeAdmin(email: string): Promise<string> {
  const user = await UserModel.findOne({ email: email.trim().toLowerCase() });
  if (!user)
    throw new Error(
      `no account with the email ${email}: register it first (POST /api/v1/auth/register), then run this again`,
    );
  if (user.role === 'admin') return `${user.email} is already an admin`;
  await UserModel.updateOne({ _id: user._id }, { $set: { role: 'admin' } });
  return `${user.email} (${user.username}) is now an admin`;
}

async function main(argv: string[]): Promise<void> {
  const email = argv[0];
  if (!email || argv.length > 1 || !email.includes('@')) throw new Error(USAGE);
  const { config } = loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
  let localDatabase: LocalDatabase | undefined;
  let uri = config.mongodb.uri;
  if (!uri) {
    localDatabase = await startLocalDatabase({ persistent: true, dataDir: DEVELOPMENT_DATA_DIR, log: () => undefined });
    uri = localDatabase.uri;
  }
  try {
    await connectDatabase({ uri, serverApi: config.mongodb.serverApi });
    process.stdout.write(`${await makeAdmin(email)}\n`);
  } finally {
    await disconnectDatabase();
    await localDatabase?.stop();
  }
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
