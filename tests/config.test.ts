import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'dotenv';
import { ConfigError, loadConfig, SETTING_NAMES } from '../src/config';
import { parseDurationSeconds } from '../src/config/duration';

const SECRET_A = 'a'.repeat(32);
const SECRET_B = 'b'.repeat(32);
const production = {
  NODE_ENV: 'production',
  MONGODB_URI: 'mongodb://db/blog',
  JWT_ACCESS_SECRET: SECRET_A,
  JWT_REFRESH_SECRET: SECRET_B,
  CLOUDINARY_URL: 'cloudinary://key:secret@demo',
  PUBLIC_URL: 'https://blog.example.com',
  SITE_URL: 'https://blog.example',
  SMTP_URL: 'smtps://mailer:p%40ss@mail.example?from=Blog%20%3Cno-reply%40blog.example%3E',
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const { config } = loadConfig({
      NODE_ENV: 'development',
      JWT_ACCESS_SECRET: SECRET_A,
      JWT_REFRESH_SECRET: SECRET_B,
    });
    expect(config).toMatchObject({
      port: 3000,
      jwt: { accessTtlSeconds: 900, refreshTtlSeconds: 604800 },
      rateLimit: { max: 60, windowMs: 60000 },
      trustProxy: false,
      bcryptCost: 12,
      mongodb: { uri: undefined, serverApi: false },
      corsOrigins: [],
    });
  });

  it('generates development secrets, different from each other, with a loud warning each', () => {
    const { config, warnings } = loadConfig({ NODE_ENV: 'development' });
    expect(config.jwt.accessSecret.length).toBeGreaterThanOrEqual(32);
    expect(config.jwt.accessSecret).not.toBe(config.jwt.refreshSecret);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('JWT_ACCESS_SECRET');
    expect(warnings[1]).toContain('JWT_REFRESH_SECRET');
  });

  it.each(['MONGODB_URI', 'JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'PUBLIC_URL'])(
    'stops production start-up without %s, naming it',
    (name) => {
      const environment: Record<string, string> = { ...production };
      delete environment[name];
      expect(() => loadConfig(environment)).toThrow(ConfigError);
      expect(() => loadConfig(environment)).toThrow(`${name} is required when NODE_ENV=production`);
    },
  );

  it('names every setting production lacks in one line', () => {
    const { NODE_ENV, SITE_URL } = production;
    expect(() => loadConfig({ NODE_ENV, SITE_URL })).toThrow(
      'MONGODB_URI, PUBLIC_URL, JWT_ACCESS_SECRET and JWT_REFRESH_SECRET are required when NODE_ENV=production',
    );
    const { PUBLIC_URL: _url, JWT_REFRESH_SECRET: _secret, ...twoMissing } = production;
    expect(() => loadConfig(twoMissing)).toThrow(
      'PUBLIC_URL and JWT_REFRESH_SECRET are required when NODE_ENV=production',
    );
  });

  it('accepts a complete production environment without warnings', () => {
    const { config, warnings } = loadConfig(production);
    expect(config.isProduction).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('refuses short secrets and equal secrets', () => {
    expect(() => loadConfig({ ...production, JWT_ACCESS_SECRET: 'short' })).toThrow(
      'JWT_ACCESS_SECRET must be at least 32',
    );
    expect(() => loadConfig({ ...production, JWT_REFRESH_SECRET: SECRET_A })).toThrow('must differ');
  });

  it.each([
    ['PORT', 'abc'],
    ['RATE_LIMIT_MAX', '0'],
    ['BCRYPT_COST', '9'],
    ['ACCESS_TOKEN_TTL', 'soon'],
    ['NODE_ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
    ['MONGODB_SERVER_API', 'maybe'],
    ['MONGODB_URI', 'notauri'],
    ['MONGODB_URI', 'postgres://u:pw@db/blog'],
    // hosts the driver cannot read, which used to pass here and fail only at connect
    ['MONGODB_URI', 'mongodb://u:pw@[db/blog'],
    ['MONGODB_URI', 'mongodb://u:pw@db:99999/blog'],
    ['MONGODB_URI', 'mongodb+srv://u:pw@cluster0.example.net:27017/blog'],
    // an address browsers open: http or https only
    ['PUBLIC_URL', 'javascript:alert(1)//'],
    ['PUBLIC_URL', 'ftp://files.example'],
    ['SITE_URL', 'javascript:alert(1)//'],
    // refused by Express only once the database was up, without the variable's name
    ['TRUST_PROXY', 'banana'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    // ranges Express refuses too: of no addresses, or a netmask with gaps
    ['TRUST_PROXY', '0.0.0.0/0'],
    ['TRUST_PROXY', '10.0.0.0/255.0.255.0'],
    // "Invalid URL" and "URI malformed", without the variable's name
    ['REDIS_URL', 'redis://127.0.0.1:abc'],
    ['REDIS_URL', 'redis://:pw@127.0.0.1:99999'],
    ['REDIS_URL', 'redis://:50%off@127.0.0.1:6379'],
    ['REDIS_URL', 'redis://127.0.0.1:0'],
    ['CLOUDINARY_URL', 'cloudinary://123:s3cr%zzpw@mycloud'],
    ['SMTP_URL', 'smtp://u:s3cret%ZZpw@mail.example:587?from=a@b.example'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    expect(() => loadConfig({ ...production, [name]: value })).toThrow(new RegExp(`^${name}: `));
    expect(() => loadConfig({ ...production, [name]: value })).not.toThrow(/pw@/);
  });

  it.each([
    'mongodb://db/blog',
    'mongodb+srv://u:p@cluster0.example.net/blog?retryWrites=true',
    'mongodb://u:p%40ss@db-0:27017,db-1:27018/blog?replicaSet=rs0',
    'mongodb://[::1]:27017/blog',
    'mongodb://%2Ftmp%2Fmongodb-27017.sock/blog',
  ])('accepts MONGODB_URI %s', (uri) => {
    expect(() => loadConfig({ ...production, MONGODB_URI: uri })).not.toThrow();
  });

  it('reads the Cloudinary credentials and an upload_prefix from CLOUDINARY_URL, and refuses another form', () => {
    expect(loadConfig(production).config.storage.cloudinary).toEqual({
      cloudName: 'demo',
      apiKey: 'key',
      apiSecret: 'secret',
      folder: 'blog-banners',
      uploadPrefix: undefined,
    });
    const regional = 'cloudinary://key:secret@demo?upload_prefix=https://api-eu.cloudinary.com/';
    expect(loadConfig({ ...production, CLOUDINARY_URL: regional }).config.storage.cloudinary?.uploadPrefix).toBe(
      'https://api-eu.cloudinary.com',
    );
    for (const url of [
      'cloudinary://key@demo',
      'cloudinary://key:secret@demo?cname=x',
      'cloudinary://k:s@demo?upload_prefix=nope',
    ]) {
      expect(() => loadConfig({ ...production, CLOUDINARY_URL: url })).toThrow(/^CLOUDINARY_URL: /);
    }
  });

  it('reads SMTP_URL into its parts, the sender from ?from=, and refuses it without a sender or beside no SITE_URL', () => {
    expect(loadConfig(production).config.mail.smtp).toEqual({
      host: 'mail.example',
      port: 465,
      secure: true,
      auth: { user: 'mailer', pass: 'p@ss' },
      from: 'Blog <no-reply@blog.example>',
    });
    expect(loadConfig({ ...production, SMTP_URL: 'smtp://mail.example:2525?from=a@b.example' }).config.mail).toEqual({
      smtp: { host: 'mail.example', port: 2525, secure: false, auth: undefined, from: 'a@b.example' },
      directory: undefined,
      sendTimeoutMs: 10_000,
    });
    for (const url of [
      'smtp://mail.example',
      'smtp://mail.example?from=nobody',
      'smtp://m?from=a@b.example%0ABcc:%20x@y',
    ]) {
      expect(() => loadConfig({ ...production, SMTP_URL: url })).toThrow(/^SMTP_URL: add the sender/);
    }
    expect(() => loadConfig({ ...production, SMTP_URL: 'http://mail.example' })).toThrow(/^SMTP_URL: /);
    const { SITE_URL: _site, ...withoutSite } = production;
    expect(() => loadConfig(withoutSite)).toThrow(/^SMTP_URL needs SITE_URL/);
  });

  it('turns mail off in production without SMTP_URL, saying so, and refuses email verification there', () => {
    const { SMTP_URL: _smtp, ...withoutSmtp } = production;
    const { config, warnings } = loadConfig(withoutSmtp);
    expect(config.mail).toEqual({ smtp: undefined, directory: undefined, sendTimeoutMs: 10_000 });
    expect(warnings).toEqual([expect.stringMatching(/^SMTP_URL is not set: mail is off/)]);
    expect(() => loadConfig({ ...withoutSmtp, EMAIL_VERIFICATION: 'required' })).toThrow(
      /^EMAIL_VERIFICATION=required needs SMTP_URL/,
    );
    expect(loadConfig({ NODE_ENV: 'development' }).config.mail.directory).toBe('.data/mail');
    expect(() => loadConfig({ ...production, EMAIL_VERIFICATION: 'sometimes' })).toThrow(/^EMAIL_VERIFICATION: /);
  });

  it('reads at most 40 settings, each one documented in docs/configuration.md and .env.example, which it accepts', () => {
    const root = path.resolve(__dirname, '..');
    const reference = readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');
    const example = parse(readFileSync(path.join(root, '.env.example')));
    expect(SETTING_NAMES.length).toBeLessThanOrEqual(41);
    for (const name of SETTING_NAMES) {
      expect({ name, documented: reference.includes(`| \`${name}\``) }).toEqual({ name, documented: true });
      expect(Object.keys(example)).toContain(name);
    }
    expect(() => loadConfig(example)).not.toThrow();
  });

  it('allows a bcrypt cost below 10 only under NODE_ENV=test', () => {
    expect(loadConfig({ NODE_ENV: 'test', BCRYPT_COST: '4' }).config.bcryptCost).toBe(4);
    expect(() => loadConfig({ NODE_ENV: 'development', BCRYPT_COST: '4' })).toThrow(/^BCRYPT_COST: .*NODE_ENV=test/);
    expect(() => loadConfig({ NODE_ENV: 'test', BCRYPT_COST: '3' })).toThrow(/^BCRYPT_COST: /);
  });

  it('lower-cases the admin whitelist and trims list entries', () => {
    const { config } = loadConfig({ ...production, ADMIN_EMAILS: ' Boss@Example.com , second@example.com,' });
    expect([...config.adminEmails]).toEqual(['boss@example.com', 'second@example.com']);
  });

  it.each([
    [undefined, false],
    ['false', false],
    ['off', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['loopback, fd00::/8, 10.0.0.0/255.0.0.0', ['loopback', 'fd00::/8', '10.0.0.0/255.0.0.0']],
    ['::ffff:10.0.0.1, fe80::1%eth0', ['::ffff:10.0.0.1', 'fe80::1%eth0']],
  ])('reads TRUST_PROXY=%p as %p', (value, expected) => {
    const { config } = loadConfig({ ...production, ...(value === undefined ? {} : { TRUST_PROXY: value }) });
    expect(config.trustProxy).toEqual(expected);
  });

  it.each([
    [undefined, false, 60, 300],
    ['off', false, 60, 300],
    ['true', true, 60, 300],
    ['yes', true, 60, 300],
    ['max-age=30,stale-while-revalidate=120', true, 30, 120],
    ['max-age=0', true, 0, 300],
    [' stale-while-revalidate=10 ', true, 60, 10],
  ])('reads PUBLIC_READS=%p as public reads %p, max-age %p, stale-while-revalidate %p', (value, on, maxAge, stale) => {
    const { config } = loadConfig({ ...production, ...(value === undefined ? {} : { PUBLIC_READS: value }) });
    expect({ on: config.publicReads, cache: config.publicCache }).toEqual({
      on,
      cache: { maxAgeSeconds: maxAge, staleWhileRevalidateSeconds: stale },
    });
  });

  it.each(['TRUE', 'maybe', 'max-age=-1', 'max-age=90000', 'max-age=1,max-age=2', 'no-store', 'max-age=1;s=2'])(
    'refuses PUBLIC_READS=%p, naming both forms',
    (value) => {
      expect(() => loadConfig({ ...production, PUBLIC_READS: value })).toThrow(/PUBLIC_READS.*max-age=60/);
    },
  );

  it('freezes the result', () => {
    const { config } = loadConfig(production);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.jwt)).toBe(true);
  });
});

describe('parseDurationSeconds', () => {
  it.each([
    ['900', 900],
    ['90s', 90],
    ['15m', 900],
    ['12h', 43200],
    ['7d', 604800],
    ['1w', 604800],
    ['1.5h', 5400],
    ['15 minutes', 900],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseDurationSeconds(text)).toBe(seconds);
  });

  it.each(['', '0', '-5m', 'm', 'soon', '100ms', '1.5s'])('refuses %p', (text) => {
    expect(parseDurationSeconds(text)).toBeUndefined();
  });
});
