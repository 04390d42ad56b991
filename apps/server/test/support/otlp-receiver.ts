/**
 * An OTLP/HTTP trace receiver of the suite's own: what a collector would get from the server,
 * decoded from protobuf or JSON into one shape. The protobuf is read by the field numbers of
 * OpenTelemetry's proto files (`opentelemetry/proto/collector/trace/v1/trace_service.proto`,
 * `trace/v1/trace.proto`, `common/v1/common.proto`) straight off the wire format, apart from the
 * SDK's own encoder, so that the two cannot agree on a mistake.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;
export type Attributes = Record<string, AttributeValue>;

/** The span kinds' numbers in OTLP. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
/** The status codes' numbers in OTLP. */
export const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: Array<{ name: string; attributes: Attributes }>;
  links: Array<{ traceId: string; spanId: string; attributes: Attributes }>;
  status: { code: number; message: string };
  /** The resource it was exported with (`service.name`…). */
  resource: Attributes;
}

export interface OtlpReceiver {
  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` names: the receiver takes `/v1/traces` under it. */
  readonly url: string;
  /** Every span received so far, in order. */
  readonly spans: ReceivedSpan[];
  /** Every export request's body as it came, for what must never be in one. */
  readonly bodies: Buffer[];
  /** The content type of each export request. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

// ---- The protobuf wire format --------------------------------------------------------------

interface Field {
  number: number;
  /** A varint, or the bytes of a length-delimited or fixed-size field. */
  value: bigint | Buffer;
}

function readVarint(bytes: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n, offset = at; ; shift += 7n, offset += 1) {
    const byte = bytes[offset];
    if (byte === undefined) throw new Error('protobuf: a varint runs past the end');
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, offset + 1];
  }
}

/** The fields of one message, in order. */
function fieldsOf(bytes: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [tag, afterTag] = readVarint(bytes, at);
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    at = afterTag;
    if (wireType === 0) {
      const [value, next] = readVarint(bytes, at);
      fields.push({ number, value });
      at = next;
    } else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      fields.push({ number, value: bytes.subarray(at, at + size) });
      at += size;
    } else if (wireType === 2) {
      const [length, start] = readVarint(bytes, at);
      at = start + Number(length);
      fields.push({ number, value: bytes.subarray(start, at) });
    } else {
      throw new Error(`protobuf: wire type ${wireType} is not used by OTLP`);
    }
  }
  return fields;
}

const bytesOf = (field: Field) => field.value as Buffer;
const textOf = (field: Field) => bytesOf(field).toString('utf8');
const numberOf = (field: Field) => Number(field.value as bigint);
const all = (fields: Field[], number: number) => fields.filter((field) => field.number === number);
const first = (fields: Field[], number: number) => fields.find((field) => field.number === number);

function anyValue(bytes: Buffer): AttributeValue {
  const [field] = fieldsOf(bytes);
  if (!field) return null;
  switch (field.number) {
    case 1:
      return textOf(field);
    case 2:
      return field.value === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4:
      return bytesOf(field).readDoubleLE(0);
    case 5:
      return all(fieldsOf(bytesOf(field)), 1).map((value) => anyValue(bytesOf(value)));
    default:
      return bytesOf(field).toString('hex');
  }
}

function attributesOf(keyValues: Field[]): Attributes {
  const attributes: Attributes = {};
  for (const keyValue of keyValues) {
    const fields = fieldsOf(bytesOf(keyValue));
    const key = first(fields, 1);
    const value = first(fields, 2);
    if (key) attributes[textOf(key)] = value ? anyValue(bytesOf(value)) : null;
  }
  return attributes;
}

const hexOf = (field: Field | undefined) => (field ? bytesOf(field).toString('hex') : '');
const nanosOf = (field: Field | undefined) => (field ? bytesOf(field).readBigUInt64LE(0) : 0n);

function protobufSpan(bytes: Buffer, resource: Attributes): ReceivedSpan {
  const fields = fieldsOf(bytes);
  const statusField = first(fields, 15);
  const status = statusField ? fieldsOf(bytesOf(statusField)) : [];
  const name = first(fields, 5);
  const kind = first(fields, 6);
  const statusMessage = first(status, 2);
  const statusCode = first(status, 3);
  return {
    traceId: hexOf(first(fields, 1)),
    spanId: hexOf(first(fields, 2)),
    parentSpanId: hexOf(first(fields, 4)),
    name: name ? textOf(name) : '',
    kind: kind ? numberOf(kind) : 0,
    startTimeUnixNano: nanosOf(first(fields, 7)),
    endTimeUnixNano: nanosOf(first(fields, 8)),
    attributes: attributesOf(all(fields, 9)),
    events: all(fields, 11).map((event) => {
      const eventFields = fieldsOf(bytesOf(event));
      const eventName = first(eventFields, 2);
      return {
        name: eventName ? textOf(eventName) : '',
        attributes: attributesOf(all(eventFields, 3)),
      };
    }),
    links: all(fields, 13).map((link) => {
      const linkFields = fieldsOf(bytesOf(link));
      return {
        traceId: hexOf(first(linkFields, 1)),
        spanId: hexOf(first(linkFields, 2)),
        attributes: attributesOf(all(linkFields, 4)),
      };
    }),
    status: {
      code: statusCode ? numberOf(statusCode) : 0,
      message: statusMessage ? textOf(statusMessage) : '',
    },
    resource,
  };
}

/** ExportTraceServiceRequest → ResourceSpans (1) → Resource (1), ScopeSpans (2) → Span (2). */
function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  return all(fieldsOf(body), 1).flatMap((resourceSpans) => {
    const fields = fieldsOf(bytesOf(resourceSpans));
    const resourceField = first(fields, 1);
    const resource = resourceField ? attributesOf(all(fieldsOf(bytesOf(resourceField)), 1)) : {};
    return all(fields, 2).flatMap((scopeSpans) =>
      all(fieldsOf(bytesOf(scopeSpans)), 2).map((span) => protobufSpan(bytesOf(span), resource)),
    );
  });
}

// ---- OTLP/JSON ---------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  bytesValue?: string;
}

function jsonValue(value: JsonAnyValue | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  return value.bytesValue ?? null;
}

function jsonAttributes(keyValues: JsonKeyValue[] | undefined): Attributes {
  return Object.fromEntries((keyValues ?? []).map(({ key, value }) => [key, jsonValue(value)]));
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: JsonKeyValue[];
  events?: Array<{ name: string; attributes?: JsonKeyValue[] }>;
  links?: Array<{ traceId: string; spanId: string; attributes?: JsonKeyValue[] }>;
  status?: { code?: number; message?: string };
}

interface JsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: Array<{ spans?: JsonSpan[] }>;
  }>;
}

function spansOfJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map(
        (span): ReceivedSpan => ({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          startTimeUnixNano: BigInt(span.startTimeUnixNano),
          endTimeUnixNano: BigInt(span.endTimeUnixNano),
          attributes: jsonAttributes(span.attributes),
          events: (span.events ?? []).map(({ name, attributes }) => ({
            name,
            attributes: jsonAttributes(attributes),
          })),
          links: (span.links ?? []).map(({ traceId, spanId, attributes }) => ({
            traceId,
            spanId,
            attributes: jsonAttributes(attributes),
          })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource: jsonAttributes(resource?.attributes),
        }),
      ),
    ),
  );
}

// ---- The receiver ------------------------------------------------------------------------

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/** Answers what a collector answers: an empty ExportTraceServiceResponse, in the request's format. */
function accepted(res: ServerResponse, json: boolean) {
  res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
  res.end(json ? '{}' : '');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const contentType = req.headers['content-type'] ?? '';
    const body = await bodyOf(req);
    const json = contentType.startsWith('application/json');
    bodies.push(body);
    contentTypes.push(contentType);
    spans.push(...(json ? spansOfJson(body) : spansOfProtobuf(body)));
    accepted(res, json);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
