/**
 * A private npm registry on 127.0.0.1 to publish to as a release does: Verdaccio, installed from
 * the npm registry as a dependency of this package, with its storage in a temp folder and no
 * uplinks, so it serves exactly what was published to it and reaches no other registry.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@animal-store/local-ports';

export interface LocalRegistry {
  /** Its address, e.g. `http://127.0.0.1:41234/` (with the trailing slash npm writes). */
  readonly url: string;
  /** The token of a user made on it, who may publish. */
  readonly token: string;
  /** What the registry answers for a package: its versions, dist-tags and publish times. */
  packument(name: string): Promise<Packument>;
  stop(): Promise<void>;
}

export interface Packument {
  readonly 'dist-tags': Record<string, string>;
  readonly versions: Record<string, { readonly dependencies?: Record<string, string> }>;
  /** When each version was published (ISO 8601), besides `created` and `modified`. */
  readonly time: Record<string, string>;
}

const USER = { name: 'release-rehearsal', password: 'rehearsal-only-password' };

async function verdaccioExecutable(): Promise<string> {
  const manifestPath = createRequire(import.meta.url).resolve('verdaccio/package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(dirname(manifestPath), manifest.bin.verdaccio ?? 'bin/verdaccio');
}

/** Verdaccio reads YAML, of which JSON is a part. */
function configuration(folder: string) {
  return {
    storage: join(folder, 'storage'),
    auth: { htpasswd: { file: join(folder, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated' } },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'warn' },
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Verdaccio exited:\n${output()}`);
    const answered = await fetch(new URL('-/ping', url)).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Verdaccio did not answer on ${url}:\n${output()}`);
}

async function addUser(url: string): Promise<string> {
  const response = await fetch(new URL(`-/user/org.couchdb.user:${USER.name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: USER.name, password: USER.password }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) {
    throw new Error(`Verdaccio refused the user: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-registry-'));
  const configPath = join(folder, 'config.yaml');
  await writeFile(configPath, JSON.stringify(configuration(folder), null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;

  const child = spawn(
    process.execPath,
    [await verdaccioExecutable(), '--config', configPath, '--listen', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(folder, { recursive: true, force: true });
  };

  try {
    await waitUntilAnswering(url, child, () => output);
    const token = await addUser(url);
    return {
      url,
      token,
      async packument(name) {
        const response = await fetch(new URL(name.replace('/', '%2f'), url));
        if (!response.ok) throw new Error(`${name}: the registry answered ${response.status}`);
        return (await response.json()) as Packument;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
