/**
 * For the tests that drive a program of the operating system (Chromium, HAProxy): the test
 * command brings it itself, so a fresh machine needs no manual step, and it never downloads a
 * build from outside the package registries:
 * 1. the environment variable `variable`, when set, names the executable;
 * 2. else the Debian package's executable at `debianPath`,
 * 3. which the tests install with apt-get when they run as root on Debian or Ubuntu.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';

const APT_GET = '/usr/bin/apt-get';

/**
 * How long finding a tool may take where it may be installed (ms): apt-get fails at once when
 * another apt-get holds its locks, and on a fresh machine the suites of the test command install
 * their tools side by side (Chromium for one, HAProxy for two test files of another), so each
 * waits its turn up to this long (Debian 12's apt waits so for the lists' lock `update` takes,
 * too). A test hook that may install a tool gets as long.
 */
export const SYSTEM_TOOL_INSTALL_MS = 600_000;

const WAIT_FOR_APT_LOCK = ['-o', `DPkg::Lock::Timeout=${SYSTEM_TOOL_INSTALL_MS / 1_000}`];

export interface SystemTool {
  /** What the tests call it, e.g. `Chromium`. */
  name: string;
  /** The environment variable that may name another executable, e.g. `CHROMIUM_PATH`. */
  variable: string;
  /** Its value (read by the caller, where the environment checks of the test command see it). */
  named: string | undefined;
  /** The Debian package, e.g. `chromium`. */
  debianPackage: string;
  /** Where the package puts the executable, e.g. `/usr/bin/chromium`. */
  debianPath: string;
  /** Who needs it, for the message when it cannot be had, e.g. `The web tests`. */
  neededBy: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function installDebianPackage({ name, debianPackage }: SystemTool): Promise<void> {
  const apt = promisify(execFile);
  const options = {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 1 << 26,
  };
  process.stderr.write(
    `${name} is missing: installing Debian’s ${debianPackage} package (apt-get)…\n`,
  );
  await apt(APT_GET, [...WAIT_FOR_APT_LOCK, 'update', '-qq'], options);
  await apt(APT_GET, [...WAIT_FOR_APT_LOCK, 'install', '-y', '-qq', debianPackage], options);
}

/** The tool's executable: named, found, or installed; else an error saying how to get it. */
export async function findSystemTool(tool: SystemTool): Promise<string> {
  const { named } = tool;
  if (named) {
    if (isExecutable(named)) return named;
    throw new Error(`${tool.variable}=${named} is not an executable file.`);
  }
  if (isExecutable(tool.debianPath)) return tool.debianPath;
  if (process.getuid?.() === 0 && isExecutable(APT_GET)) {
    await installDebianPackage(tool);
    if (isExecutable(tool.debianPath)) return tool.debianPath;
  }
  throw new Error(
    `${tool.neededBy} need ${tool.name}: run them as root on Debian (they install the ${tool.debianPackage} package), install it yourself, or set ${tool.variable} to its executable.`,
  );
}

/** Debian's Chromium, or the one `CHROMIUM_PATH` names: the browser of every browser test. */
export function findChromium(neededBy: string): Promise<string> {
  return findSystemTool({
    name: 'Chromium',
    variable: 'CHROMIUM_PATH',
    named: process.env.CHROMIUM_PATH,
    debianPackage: 'chromium',
    debianPath: '/usr/bin/chromium',
    neededBy,
  });
}
