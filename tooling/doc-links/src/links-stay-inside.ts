import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** A scheme such as `https:` or `mailto:`: the link names an address, not a file of ours. */
const SCHEME = /^[a-z][a-z\d+.-]+:/i;
/** `C:\…` or `C:/…`: a Windows path, which looks like a scheme of one letter. */
const DRIVE = /^[a-z]:[\\/]/i;

/**
 * Why a link target breaks the rule that the repository stands alone, or undefined when it
 * keeps to it. remark-validate-links checks that a relative link names an existing file and
 * heading, but a file outside the repository exists too on the machine that wrote the link, and
 * it skips absolute paths altogether: those are this check's.
 */
export function linkProblem(url: string, fromFile: string, root: string): string | undefined {
  if (url === '' || url.startsWith('#')) return undefined;
  if (/^file:/i.test(url)) {
    return `\`${url}\` names a file on one machine: link it relative to this file`;
  }
  if (DRIVE.test(url) || url.startsWith('/') || url.startsWith('\\')) {
    return `\`${url}\` is an absolute path: link it relative to this file`;
  }
  if (SCHEME.test(url)) return undefined;
  let path = url.replace(/[?#].*$/s, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // Left as written: remark-validate-links reports it if it names no file.
  }
  const fromRoot = relative(root, resolve(dirname(fromFile), path));
  if (fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) {
    return `\`${url}\` leads out of the repository`;
  }
  return undefined;
}

/** Where a node is in its file, as unist gives it. */
interface Position {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

/** What this check reads of a Markdown syntax tree (mdast): nodes, and the targets of links. */
interface MarkdownNode {
  type: string;
  url?: string;
  children?: MarkdownNode[];
  position?: Position;
}

/** What it uses of the file being checked (a vfile). */
interface CheckedFile {
  path: string;
  cwd: string;
  message(
    reason: string,
    options: { place?: Position | undefined; ruleId: string; source: string },
  ): unknown;
}

/** A remark plugin: every link, image and link definition whose target leaves `root` is a warning. */
export function linksStayInside(options: { root: string }) {
  return (tree: MarkdownNode, file: CheckedFile) => {
    const fromFile = resolve(file.cwd, file.path);
    const visit = (node: MarkdownNode) => {
      const problem =
        node.url === undefined ? undefined : linkProblem(node.url, fromFile, options.root);
      if (problem) {
        file.message(problem, {
          place: node.position,
          ruleId: 'inside',
          source: 'links-stay-inside',
        });
      }
      for (const child of node.children ?? []) visit(child);
    };
    visit(tree);
  };
}
