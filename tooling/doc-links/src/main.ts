import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLinks } from './check-links.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

// The repository's Markdown files: tracked ones and new ones not yet added, but none that Git
// ignores (node_modules, build output, bench reports). Changelogs are written by changesets.
const listed = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.md'],
  { cwd: root, encoding: 'utf8' },
);
const files = listed
  .split('\0')
  .filter((file) => file !== '' && !/(^|\/)CHANGELOG\.md$/.test(file))
  .filter((file) => existsSync(join(root, file)));

if (await checkLinks(root, files)) {
  process.stdout.write(
    `Links: ${files.length} Markdown files, every link resolves inside the repository\n`,
  );
} else {
  console.error(
    'Links: fix the links above (relative to the file they are in, inside the repository)',
  );
  process.exitCode = 1;
}
