import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from './json-body.js';
import type { PageCursors } from './page-cursor.js';
import type { PetDatabase } from './pet-database.js';
import { ClientError, sendJson, validationFailed } from './responses.js';
import { checkIdempotencyKey, checkListQuery, checkNewPet, petIdFrom } from './validation.js';

/** Key order does not change a JSON object, so it does not change its hash (bodies are flat). */
function requestHashOf(body: Record<string, unknown>): string {
  const sorted = Object.keys(body)
    .sort()
    .map((key) => [key, body[key]]);
  return createHash('sha256')
    .update(JSON.stringify(Object.fromEntries(sorted)))
    .digest('base64url');
}

export function createPetOperations(db: PetDatabase, cursors: PageCursors) {
  function listPets(req: IncomingMessage, res: ServerResponse, query: string): void {
    const checked = checkListQuery(new URLSearchParams(query));
    if (!checked.ok) throw validationFailed(checked.details);
    const { limit, status, cursor } = checked.value;
    let afterId = 0;
    if (cursor !== undefined) {
      const decoded = cursors.decode(cursor);
      if (decoded === undefined) {
        throw validationFailed(
          [{ path: 'cursor', message: 'is not a cursor this service issued' }],
          'The cursor was not issued by this service.',
        );
      }
      afterId = decoded;
    }
    const rows = db.listPets({ status, afterId, limit: limit + 1 });
    const pets = rows.slice(0, limit);
    const last = pets.at(-1);
    if (rows.length > limit && last) {
      const next = new URLSearchParams({ limit: String(limit) });
      if (status) next.set('status', status);
      next.set('cursor', cursors.encode(last.id));
      res.setHeader('Link', `<http://${req.headers.host}/v1/pets?${next}>; rel="next"`);
    }
    sendJson(res, 200, pets);
  }

  async function createPet(req: IncomingMessage, res: ServerResponse, scope: string) {
    const body = await readJsonBody(req);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const pet = checkNewPet(body);
    const details = [...(key.ok ? [] : key.details), ...(pet.ok ? [] : pet.details)];
    if (!key.ok || !pet.ok) throw validationFailed(details);
    const result =
      key.value === undefined
        ? { outcome: 'created' as const, pet: db.createPet(pet.value) }
        : db.createPetOnce(pet.value, {
            scope,
            key: key.value,
            requestHash: requestHashOf(body as Record<string, unknown>),
          });
    if (result.outcome === 'conflict') {
      throw new ClientError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different body.',
      );
    }
    if (result.outcome === 'missing') {
      throw new ClientError('internal_error', 'The pet this key created is gone.');
    }
    res.setHeader('Location', `/v1/pets/${result.pet.id}`);
    if (result.outcome === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
    sendJson(res, 201, result.pet);
  }

  function getPet(res: ServerResponse, segment: string): void {
    const id = petIdFrom(segment);
    if (id === undefined) throw new ClientError('not_found', 'No resource exists at this path.');
    const pet = db.findPet(id);
    if (!pet) throw new ClientError('not_found', `No pet has id ${id}.`);
    sendJson(res, 200, pet);
  }

  return { listPets, createPet, getPet };
}

export type PetOperations = ReturnType<typeof createPetOperations>;
