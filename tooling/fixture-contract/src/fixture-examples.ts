/**
 * What the fixture contract's operations do, as examples: v1's own, and those of the operations
 * the fixture adds, written as a newcomer writes the examples of a new operation. The server and
 * the mock, each serving the fixture with no edit of their own, are held to them.
 */
import { ERROR_MESSAGES, errorBodyOf, MAX_INTEGER_ID } from '@animal-store/contract';
import {
  arrayOf,
  CONTRACT_EXAMPLES,
  type ContractExamples,
  examplesOf,
  invalid,
  raw,
  ref,
  satisfies,
  template,
  unique,
} from '@animal-store/contract/examples';
import { type FixtureContract, fixtureContract, WidgetSchema } from './fixture-contract.js';

const REX = { name: 'Rex', categoryId: 1 } as const;
const SPROCKET = { name: 'Sprocket', colour: 'blue' } as const;
const NOT_JSON = raw('{"name":', 'application/json');
const FORM = raw('name=Sprocket', 'application/x-www-form-urlencoded');
/** A JSON body one byte larger than a request body may be (16 KiB). */
const OVERSIZED = raw(
  `{"name":"${'x'.repeat(16 * 1024 + 1 - 11)}"}`,
  'application/json',
  'a JSON body of 16,385 bytes',
);
const EMPTY_NAME = errorBodyOf(ERROR_MESSAGES.invalidFields(['name']), [
  { path: 'name', message: 'must not be empty' },
]);
const WIDGET_DEPRECATION = {
  Deprecation: '@1767225600',
  Sunset: 'Wed, 01 Jan 2031 00:00:00 GMT',
  Link: '</v1/widgets>; rel="successor-version"',
};
const NO_WIDGET = errorBodyOf(ERROR_MESSAGES.noSuchResource('widgetId', MAX_INTEGER_ID));
/**
 * What every operation that takes a body answers to one it cannot read, sent with `request`'s
 * other parts: JSON that does not parse, a fragment in the target, too many bytes, another type.
 */
function refusesUnreadableBodies<Request extends object>(request: Request) {
  return [
    {
      summary: 'refuses a body that is not JSON',
      request: { ...request, body: NOT_JSON },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.bodyNotJson) },
    },
    {
      summary: 'refuses a fragment in the request target',
      request: { ...request, body: NOT_JSON, fragment: 'top' },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.fragmentInTarget) },
    },
    {
      summary: 'refuses a body larger than 16 KiB',
      request: { ...request, body: OVERSIZED },
      response: { status: 413, body: errorBodyOf(ERROR_MESSAGES.bodyTooLarge) },
    },
    {
      summary: 'refuses a body not declared JSON',
      request: { ...request, body: FORM },
      response: { status: 415, body: errorBodyOf(ERROR_MESSAGES.bodyNotDeclaredJson) },
    },
  ] as const;
}

const created = {
  operation: 'createWidget',
  request: { headers: { 'Idempotency-Key': unique('widget') }, body: SPROCKET },
} as const;

export const FIXTURE_EXAMPLES: ContractExamples<FixtureContract> = {
  ...CONTRACT_EXAMPLES,
  renamePet: [
    {
      summary: 'renames the pet, and answers it',
      given: { pet: { operation: 'createPet', request: { body: REX } } },
      request: { params: { petId: ref('pet.body.id') }, body: { name: 'Rex the Second' } },
      response: {
        status: 200,
        body: {
          id: ref('pet.body.id'),
          name: 'Rex the Second',
          categoryId: REX.categoryId,
          status: 'available',
        },
      },
    },
    {
      summary: 'answers 404 for an id no pet has, with no code of its own to say so',
      request: { params: { petId: String(MAX_INTEGER_ID) }, body: { name: 'Nobody' } },
      response: {
        status: 404,
        body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', MAX_INTEGER_ID)),
      },
    },
    {
      summary: 'refuses an empty name',
      request: { params: { petId: '1' }, body: invalid({ name: '' }) },
      response: {
        status: 400,
        body: errorBodyOf(ERROR_MESSAGES.invalidFields(['name']), [
          { path: 'name', message: 'must contain a character other than whitespace' },
        ]),
      },
    },
    ...refusesUnreadableBodies({ params: { petId: '1' } }),
  ],
  listWidgets: [
    {
      summary: 'answers the widgets of the colour asked for',
      given: { sprocket: created },
      request: { query: { colour: 'blue' } },
      response: { status: 200, body: arrayOf(WidgetSchema, { every: { colour: 'blue' } }) },
    },
    {
      summary: 'refuses a colour it does not know',
      request: { query: { colour: 'pink' } },
      response: {
        status: 400,
        body: errorBodyOf(ERROR_MESSAGES.invalidFields(['colour']), [
          { path: 'colour', message: 'must be red, green or blue' },
        ]),
      },
    },
    {
      summary: 'refuses a fragment in the request target',
      request: { fragment: 'top' },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.fragmentInTarget) },
    },
  ],
  createWidget: [
    {
      summary: 'creates the widget, and answers it with its Widget-Location',
      request: { headers: { 'Idempotency-Key': unique('widget') }, body: SPROCKET },
      response: {
        status: 201,
        body: { ...SPROCKET, id: satisfies(WidgetSchema.shape.id, 'its new id') },
        headers: { 'Widget-Location': template('/v1/widgets/{self.body.id}') },
      },
    },
    {
      summary: 'refuses an empty name',
      request: {
        headers: { 'Idempotency-Key': unique('widget') },
        body: { ...SPROCKET, name: '' },
      },
      response: { status: 400, body: EMPTY_NAME },
    },
    ...refusesUnreadableBodies({ headers: { 'Idempotency-Key': unique('widget') } }),
  ],
  getWidget: [
    {
      summary: 'answers the widget of the id, and that the operation is deprecated',
      given: { sprocket: created },
      request: { params: { widgetId: ref('sprocket.body.id') } },
      response: { status: 200, body: ref('sprocket.body'), headers: WIDGET_DEPRECATION },
    },
    {
      summary: 'answers 404 for an id no widget has',
      request: { params: { widgetId: String(MAX_INTEGER_ID) } },
      response: { status: 404, body: NO_WIDGET, headers: WIDGET_DEPRECATION },
    },
  ],
  updateWidget: [
    {
      summary: 'changes the fields sent, and answers the widget',
      given: { sprocket: created },
      request: { params: { widgetId: ref('sprocket.body.id') }, body: { colour: 'red' } },
      response: {
        status: 200,
        body: { id: ref('sprocket.body.id'), name: SPROCKET.name, colour: 'red' },
      },
    },
    {
      summary: 'answers 404 for an id no widget has',
      request: { params: { widgetId: String(MAX_INTEGER_ID) }, body: { colour: 'red' } },
      response: { status: 404, body: NO_WIDGET },
    },
    {
      summary: 'refuses an empty name',
      request: { params: { widgetId: '1' }, body: { name: '' } },
      response: { status: 400, body: EMPTY_NAME },
    },
    ...refusesUnreadableBodies({ params: { widgetId: '1' } }),
  ],
  deleteWidget: [
    {
      summary: 'removes the widget',
      given: { sprocket: created },
      request: { params: { widgetId: ref('sprocket.body.id') } },
      response: { status: 204 },
    },
    {
      summary: 'answers 404 for an id no widget has',
      request: { params: { widgetId: String(MAX_INTEGER_ID) } },
      response: { status: 404, body: NO_WIDGET },
    },
  ],
};

/** The fixture contract's examples, each ready to run (`runExample`). */
export const fixtureExampleCases = () => examplesOf(fixtureContract, FIXTURE_EXAMPLES);
