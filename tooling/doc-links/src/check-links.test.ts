import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLinks } from './check-links.js';
import { linkProblem } from './links-stay-inside.js';

describe('linkProblem', () => {
  const root = '/repo';
  const from = '/repo/docs/guide.md';

  it.each([
    'operations.md',
    'operations.md#configuration',
    '../README.md',
    '../apps/server/src/config.ts',
    '#the-request-pipeline',
    'https://github.com/nodejs/node/issues/54918',
    'mailto:ops@example.com',
    '../docs/a%20file.md',
  ])('lets %s through', (url) => {
    expect(linkProblem(url, from, root)).toBeUndefined();
  });

  it.each([
    ['../../elsewhere/spec.md', /leads out of the repository/],
    ['../..', /leads out of the repository/],
    ['/repo/docs/operations.md', /absolute path/],
    ['/etc/hosts', /absolute path/],
    ['C:\\repo\\README.md', /absolute path/],
    ['file:///repo/README.md', /names a file on one machine/],
  ])('refuses %s', (url, reason) => {
    expect(linkProblem(url, from, root)).toMatch(reason);
  });
});

describe('checkLinks', () => {
  let parent: string;
  let root: string;

  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'doc-links-'));
    root = join(parent, 'repo');
    await import('node:fs/promises').then((fs) => fs.mkdir(root));
    await writeFile(join(parent, 'outside.md'), '# Outside\n');
    await writeFile(join(root, 'target.md'), '# Target\n\n## A heading there\n');
  });
  afterAll(() => rm(parent, { recursive: true, force: true }));

  async function check(markdown: string) {
    await writeFile(join(root, 'index.md'), `# Index\n\n${markdown}\n`);
    const report = new PassThrough();
    let text = '';
    report.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const passed = await checkLinks(root, ['index.md', 'target.md'], report);
    return { passed, text };
  }

  it('passes links to files, to their headings and to headings of the same file', async () => {
    const { passed, text } = await check(
      '[t](target.md) [h](target.md#a-heading-there) [i](#index) [w](https://example.com/x.md)',
    );
    expect(text).toBe('');
    expect(passed).toBe(true);
  });

  it.each([
    ['[m](missing.md)', 'Cannot find file `missing.md`'],
    ['[h](target.md#no-such-heading)', 'Cannot find heading for `#no-such-heading` in `target.md`'],
    ['[i](#nowhere)', 'Cannot find heading for `#nowhere`'],
    ['[o](../outside.md)', '`../outside.md` leads out of the repository'],
    ['[a](/etc/hosts)', '`/etc/hosts` is an absolute path'],
    ['[d]: ../outside.md', '`../outside.md` leads out of the repository'],
  ])('fails on %s', async (markdown, reason) => {
    const { passed, text } = await check(markdown);
    expect(text).toContain(reason);
    expect(passed).toBe(false);
  });
});
