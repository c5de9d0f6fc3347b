import { createTraceState, type Attributes, type HrTime, type Link, type SpanContext, type SpanKind, type SpanStatus } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";

/**
 * A finished span as plain data, what a worker thread can be handed as JSON text (a string crosses
 * to a worker as one copy, where a structured clone of the same objects costs several times as
 * much on the request thread): everything the OTLP exporter reads of a {@link ReadableSpan} but its
 * resource, which the worker holds once, and its instrumentation scope, sent as its index in the
 * list of scopes that goes with each batch. A trace state travels as its header text.
 *
 * JSON has no NaN or infinity: a number attribute holding one reaches the receiver as null (the
 * gateway sets none).
 */
export interface SpanRecord {
  name: string;
  kind: SpanKind;
  context: PlainSpanContext;
  parent?: PlainSpanContext;
  startTime: HrTime;
  endTime: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: PlainLink[];
  events: TimedEvent[];
  scope: number;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

type PlainSpanContext = Omit<SpanContext, "traceState"> & { traceState?: string };
type PlainLink = Omit<Link, "context"> & { context: PlainSpanContext };

function plainContext(context: SpanContext): PlainSpanContext {
  const { traceId, spanId, traceFlags, isRemote, traceState } = context;
  return traceState === undefined ? { traceId, spanId, traceFlags, isRemote } : { traceId, spanId, traceFlags, isRemote, traceState: traceState.serialize() };
}

function spanContextOf(plain: PlainSpanContext): SpanContext {
  const { traceState, ...rest } = plain;
  return traceState === undefined ? rest : { ...rest, traceState: createTraceState(traceState) };
}

/** A finished span's plain data (on the request thread: no copying of its attributes or times, which JSON.stringify reads as they are), its scope's index being `scope`. */
export function spanRecordOf(span: ReadableSpan, scope: number): SpanRecord {
  return {
    name: span.name,
    kind: span.kind,
    context: plainContext(span.spanContext()),
    ...(span.parentSpanContext && { parent: plainContext(span.parentSpanContext) }),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    links: span.links.length === 0 ? [] : span.links.map((link) => ({ ...link, context: plainContext(link.context) })),
    events: span.events,
    scope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** The span a record was made from, as the SDK's processors and exporters read one, with `resource` as its resource and its scope from `scopes`. */
export function readableSpanOf(record: SpanRecord, resource: Resource, scopes: readonly InstrumentationScope[]): ReadableSpan {
  const context = spanContextOf(record.context);
  const parentSpanContext = record.parent && spanContextOf(record.parent);
  const [startSeconds, startNanos] = record.startTime;
  const [endSeconds, endNanos] = record.endTime;
  const durationNanos = (endSeconds - startSeconds) * 1e9 + (endNanos - startNanos);
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => context,
    ...(parentSpanContext && { parentSpanContext }),
    startTime: record.startTime,
    endTime: record.endTime,
    duration: [Math.trunc(durationNanos / 1e9), durationNanos % 1e9],
    ended: true,
    status: record.status,
    attributes: record.attributes,
    links: record.links.map((link) => ({ ...link, context: spanContextOf(link.context) })),
    events: record.events,
    resource,
    instrumentationScope: scopes[record.scope]!,
    droppedAttributesCount: record.droppedAttributesCount,
    droppedEventsCount: record.droppedEventsCount,
    droppedLinksCount: record.droppedLinksCount,
  };
}
