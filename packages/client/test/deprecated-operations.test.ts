/**
 * What a user's editor shows: TypeScript's language service reports each use of a deprecated
 * member (editors strike it through), from its `@deprecated` doc comment. The client's operations
 * are derived from the contract, so this checks that the notice of getPet survives the derivation.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const USE = `${PACKAGE}src/deprecated-use.ts`;
const USE_TEXT = `
import { createClient } from './index.js';
const client = createClient({ baseUrl: 'https://x', apiKey: 'k' });
client.pets.getPet({ params: { petId: 1 } });
client.pets.listPets();
client.pets.createPet({ body: { name: 'Rex', categoryId: 1 } });
`;

/** A language service over the package's compiler options and one file of use, held in memory. */
function languageServiceWithUse(): ts.LanguageService {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${PACKAGE}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const read = (path: string) => (path === USE ? USE_TEXT : ts.sys.readFile(path));
  return ts.createLanguageService({
    getCompilationSettings: () => config.options,
    getScriptFileNames: () => [USE],
    getScriptVersion: () => '1',
    getScriptSnapshot: (path) => {
      const text = read(path);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => PACKAGE,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (path) => path === USE || ts.sys.fileExists(path),
    readFile: read,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
}

test('getPet, and only getPet, is reported deprecated where it is called', () => {
  const service = languageServiceWithUse();
  expect(service.getSemanticDiagnostics(USE).map((diagnostic) => diagnostic.messageText)).toEqual(
    [],
  );

  const deprecated = service
    .getSuggestionDiagnostics(USE)
    .filter((diagnostic) => diagnostic.reportsDeprecated)
    .map((diagnostic) =>
      USE_TEXT.slice(diagnostic.start, (diagnostic.start ?? 0) + (diagnostic.length ?? 0)),
    );

  expect(deprecated).toEqual(['getPet']);
});
