import { remark } from 'remark';
import remarkValidateLinks from 'remark-validate-links';
import { engine, type Options } from 'unified-engine';
import { linksStayInside } from './links-stay-inside.js';

/**
 * Checks the links of `files` (paths relative to `root`) and reports every broken one to
 * `report`: a relative link must name a file of the repository, and a heading of it when it
 * has a `#` part (remark-validate-links, which knows GitHub's heading anchors), and no link may
 * leave the repository. Resolves to whether every link passed.
 */
export function checkLinks(
  root: string,
  files: string[],
  report: NodeJS.WritableStream = process.stderr,
): Promise<boolean> {
  return new Promise((resolvePromise, reject) => {
    engine(
      {
        processor: remark(),
        // Given to the engine, not to the processor: only so does remark-validate-links see every
        // file of the run, and check links to other files' headings.
        plugins: [
          // No repository address: links are checked as files of this folder, with no Git look-up.
          [remarkValidateLinks, { repository: false, root }],
          [linksStayInside, { root }],
          // unified-engine types a plugin's options as unknown; these two are typed by their own.
        ] as Options['plugins'],
        cwd: root,
        files,
        streamError: report,
        // Configuration and ignore files are not looked for: what is checked is decided here.
        detectConfig: false,
        detectIgnore: false,
        out: false,
        output: false,
        quiet: true,
        frail: true,
        color: false,
      },
      (error, code) => {
        if (error) reject(error);
        else resolvePromise(code === 0);
      },
    );
  });
}
