/**
 * No Docker engine runs where the tests run, so the deployment files are checked as text: the
 * compose file parses and wires the services, variables, volumes and health checks docs/operations.md
 * describes; the Dockerfile has the intended stages, user, health check and no baked-in secrets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../src/config';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  ports?: string[];
  env_file?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  healthcheck?: { test: string[] | string };
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as ComposeFile;
  const { api, mongo, redis } = compose.services;

  it('has exactly the api, mongo and redis services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'mongo', 'redis']);
  });

  it('builds the api from this Dockerfile, publishes port 3000 and reads .env', () => {
    expect(api.build).toBe('.');
    expect(api.ports).toEqual(['${API_PORT:-3000}:3000']);
    expect([api.env_file].flat()).toEqual(['.env']);
  });

  it('points the api at the mongo replica set and at redis, in production mode', () => {
    expect(api.environment).toMatchObject({
      NODE_ENV: 'production',
      MONGODB_URI: 'mongodb://mongo:27017/blog?replicaSet=rs0',
      REDIS_URL: 'redis://redis:6379',
    });
  });

  it('sets only variables that the configuration accepts, and values it accepts', () => {
    const environment = {
      ...api.environment,
      JWT_ACCESS_SECRET: 'a'.repeat(32),
      JWT_REFRESH_SECRET: 'b'.repeat(32),
      PUBLIC_URL: 'https://blog.example.com',
    };
    const { config } = loadConfig(environment);
    expect(config).toMatchObject({ isProduction: true, port: 3000, redisUrl: 'redis://redis:6379' });
  });

  it('starts the api only once mongo and redis report healthy, and gives it longer to stop than its grace period', () => {
    expect(api.depends_on).toEqual({
      mongo: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    const stopSeconds = Number(/^(\d+)s$/.exec(api.stop_grace_period ?? '')?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(loadConfig({}).config.shutdownGraceMs);
  });

  it('keeps locally stored banners on a named volume that the image lets the app user write', () => {
    expect(api.volumes).toEqual(['uploads:/app/uploads']);
    expect(compose.volumes).toHaveProperty('uploads');
    expect(read('Dockerfile')).toMatch(/mkdir -p \/app\/uploads && chown node:node \/app\/uploads/);
  });

  it('runs the official mongo image as replica set rs0 with its data on a named volume', () => {
    expect(mongo.image).toMatch(/^mongo:\d/);
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(mongo.volumes).toEqual(['mongo-data:/data/db']);
    expect(compose.volumes).toHaveProperty('mongo-data');
  });

  it('health-checks mongo by initiating the set when needed and waiting for a primary', () => {
    const test = [mongo.healthcheck?.test].flat().join(' ');
    expect(test).toContain('mongosh');
    expect(test).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(test).toContain('isWritablePrimary');
  });

  it('runs the official redis image, health-checked with PING, with nothing persisted', () => {
    expect(redis.image).toMatch(/^redis:\d/);
    expect([redis.healthcheck?.test].flat().join(' ')).toContain('redis-cli ping');
    expect([redis.command].flat().join(' ')).toContain('--appendonly no');
  });

  it('carries no secrets: JWT and Cloudinary settings come from .env only', () => {
    expect(JSON.stringify(compose)).not.toMatch(/JWT_|CLOUDINARY_/);
  });
});

/** The Dockerfile's instructions, comments dropped and continuation lines joined. */
function dockerInstructions(text: string) {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const instructions = dockerInstructions(read('Dockerfile'));
  const stages: Array<{ from: string; name: string; instructions: typeof instructions }> = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)\s+AS\s+(\S+)$/i.exec(instruction.args);
      stages.push({ from: match?.[1] ?? instruction.args, name: match?.[2] ?? '', instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  const runtime = stages.at(-1)!;
  const inRuntime = (keyword: string) => runtime.instructions.filter((instruction) => instruction.keyword === keyword);

  it('builds in a "build" stage and runs in a final "runtime" stage, both on the same small Node 24 (LTS) image', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    for (const stage of stages) expect(stage.from).toMatch(/^node:24-(slim|alpine)/);
    expect(stages[0].from).toBe(stages[1].from);
  });

  it('compiles with the dev dependencies in the build stage', () => {
    const runs = stages[0].instructions
      .filter((instruction) => instruction.keyword === 'RUN')
      .map((instruction) => instruction.args);
    expect(runs.some((run) => /npm ci\b/.test(run) && !run.includes('--omit=dev'))).toBe(true);
    expect(runs).toContain('npm run build');
  });

  it('installs only production dependencies in the final stage and copies the compiled code from the build stage', () => {
    expect(inRuntime('RUN').some((run) => run.args.includes('npm ci --omit=dev'))).toBe(true);
    expect(inRuntime('COPY').map((copy) => copy.args)).toContain('--from=build /app/dist ./dist');
  });

  it('runs as a non-root user in the final stage', () => {
    const users = inRuntime('USER');
    expect(users).toHaveLength(1);
    expect(users[0].args).not.toMatch(/^(root|0)(:|$)/);
    // USER comes after the installs, so that the running process cannot change the installed code.
    expect(runtime.instructions.indexOf(users[0])).toBeGreaterThan(
      runtime.instructions.findIndex((i) => i.keyword === 'RUN'),
    );
  });

  it('sets NODE_ENV=production and starts node directly, so SIGTERM reaches the server', () => {
    expect(inRuntime('ENV').map((env) => env.args)).toContain('NODE_ENV=production');
    expect(inRuntime('CMD').at(-1)?.args).toBe('["node", "dist/server.js"]');
  });

  it("health-checks /readyz with node's own fetch", () => {
    const healthcheck = inRuntime('HEALTHCHECK');
    expect(healthcheck).toHaveLength(1);
    expect(healthcheck[0].args).toMatch(/CMD \["node", "-e", ".*fetch\(.*\/readyz/);
    expect(healthcheck[0].args).not.toContain('curl');
  });

  it('bakes in no secrets: no ENV or ARG for JWT, Cloudinary, passwords or keys, and no .env copied', () => {
    const declared = instructions
      .filter((instruction) => ['ENV', 'ARG'].includes(instruction.keyword))
      .map((instruction) => instruction.args);
    for (const declaration of declared) expect(declaration).not.toMatch(/JWT_|CLOUDINARY_|SECRET|PASSWORD|TOKEN|_KEY/i);
    const copied = instructions
      .filter((instruction) => ['COPY', 'ADD'].includes(instruction.keyword))
      .map((instruction) => instruction.args);
    for (const copy of copied) expect(copy).not.toMatch(/\.env|^\. /);
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it.each(['node_modules', 'dist', '.data', 'uploads', '.env', 'artifacts', 'tools/mongo-standin/target', '.git'])(
    'keeps %s out of the build context',
    (entry) => {
      expect(ignored).toContain(entry);
    },
  );
});

describe('.env.example', () => {
  const documented = new Set(
    read('.env.example')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter(Boolean),
  );

  it('documents every variable that docker-compose.yml sets or the operations need', () => {
    const compose = parse(read('docker-compose.yml')) as ComposeFile;
    for (const name of [
      ...Object.keys(compose.services.api.environment ?? {}),
      'REDIS_URL',
      'SHUTDOWN_TIMEOUTS',
      'TRUST_PROXY',
      'API_PORT',
    ]) {
      expect(documented).toContain(name);
    }
  });

  it('carries no secret values', () => {
    expect(read('.env.example')).toMatch(/^JWT_ACCESS_SECRET=$/m);
    expect(read('.env.example')).toMatch(/^JWT_REFRESH_SECRET=$/m);
  });
});
