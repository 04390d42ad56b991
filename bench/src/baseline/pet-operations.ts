import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from './json-body.js';
import type { PageCursors } from './page-cursor.js';
import { type CreateOnceResult, type PetStore, whenReady } from './pet-store.js';
import { ClientError, sendJsonText, validationFailed } from './responses.js';
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

export function createPetOperations(db: PetStore, cursors: PageCursors) {
  function listPets(req: IncomingMessage, res: ServerResponse, query: string) {
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
    return whenReady(db.listPets({ status, afterId, limit }), (page) => {
      if (page.nextAfterId !== undefined) {
        const next = new URLSearchParams({ limit: String(limit) });
        if (status) next.set('status', status);
        next.set('cursor', cursors.encode(page.nextAfterId));
        res.setHeader('Link', `<http://${req.headers.host}/v1/pets?${next}>; rel="next"`);
      }
      sendJsonText(res, 200, page.json);
    });
  }

  async function createPet(req: IncomingMessage, res: ServerResponse, scope: string) {
    const body = await readJsonBody(req);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const pet = checkNewPet(body);
    const details = [...(key.ok ? [] : key.details), ...(pet.ok ? [] : pet.details)];
    if (!key.ok || !pet.ok) throw validationFailed(details);
    const result: CreateOnceResult =
      key.value === undefined
        ? { outcome: 'created', pet: await db.createPet(pet.value) }
        : await db.createPetOnce(pet.value, {
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
    sendJsonText(res, 201, result.pet.json);
  }

  function getPet(res: ServerResponse, segment: string) {
    const id = petIdFrom(segment);
    if (id === undefined) throw new ClientError('not_found', 'No resource exists at this path.');
    return whenReady(db.findPet(id), (pet) => {
      if (!pet) throw new ClientError('not_found', `No pet has id ${id}.`);
      sendJsonText(res, 200, pet.json);
    });
  }

  return { listPets, createPet, getPet };
}

export type PetOperations = ReturnType<typeof createPetOperations>;
