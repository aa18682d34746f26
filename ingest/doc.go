// doc.go: the package comment: the two input formats, the GenAI mapping, assembly bounds and decisions.

// Package ingest reads production traces for continuous evaluation: Attest
// NDJSON traces (spec §3.1, one per line), OpenTelemetry OTLP trace exports
// (resourceSpans) and log exports (resourceLogs, the GenAI events as log
// records) in JSON or binary protobuf, which it assembles by trace id and
// maps to Attest traces by the OpenTelemetry GenAI semantic conventions and
// the other conventions producers write (OpenInference, OpenLLMetry, the
// Vercel AI SDK). docs/otel-producers.md has the table of producers.
//
// # Input
//
// [Reader] reads NDJSON lines of at most trace.MaxLineBytes; a longer line is
// read to its end without being held whole and becomes an error item,
// named (Trace.Digest) by its length and its first bytes, up to the bound. With
// [FormatAuto] a line whose first member is "resourceSpans" is OTLP/JSON,
// one whose first member is "resourceLogs" OTLP/JSON logs (logs.go),
// anything else an Attest trace, parsed by the engine's one parser (package
// tape), kept for evaluation to read in place (Trace.Doc), never decoded. Validation (spec §7) is the evaluator's, as for any trace.
//
// OTLP/JSON follows opentelemetry-proto's JSON encoding: lowerCamelCase
// member names, traceId and spanId as hex (base64, the generic protobuf
// mapping some exporters use, is accepted too: the length tells them
// apart), 64-bit integers (intValue, *TimeUnixNano) as decimal strings or
// numbers, status codes as numbers or enum names, and attribute values as
// the AnyValue union, nested at most 32 levels. A body in which any object
// repeats a member name, or holds two names equal without regard to case,
// is an error (names.go), as a repeated name is in every JSON the engine
// reads: readers that keep the first and the last would see two requests.
//
// Binary protobuf ([ParseOTLPProto], the body of OTLP/HTTP's default
// encoding, application/x-protobuf) reads the same ExportTraceServiceRequest
// to the same spans, by opentelemetry-proto's field numbers, on a small wire
// reader of its own (no protobuf library): ids are raw bytes, exactly 16
// and 8 of them; int values become their decimal text, doubles the shortest
// decimal that reads back to them (NaN and infinities null), bytes their
// standard base64, as the JSON mapping writes them. Fields may come in any
// order; unknown ones are skipped by wire type; a singular field sent twice
// keeps its last value and a message sent twice is merged. A known field
// with another wire type, a group, a length past the end of its message
// and a truncated or over-long varint are errors; nesting is checked before
// each level is read, so recursion is bounded. A span, an event or a
// key-value list keeps its first 1,024 attributes; the rest are dropped.
// Events are kept as from JSON (below). Invalid UTF-8 in a string becomes
// U+FFFD per byte, as encoding/json does with the same bytes.
//
// OTLP/JSON is read in place, one element of each list at a time, never
// decoded into slices of structs (otlp.go): what decoding a body takes at
// once is about what its spans keep, whatever the body's shape. A span
// keeps of its events only what the mapping reads from them: the GenAI
// events whole (the event-per-message events, the operation-details
// event, the deprecated gen_ai.content.* events), and of any other event
// the deprecated attributes (each from the first event that sets it), at
// most 1,024 events in all; any other event is read, checked and dropped,
// which changes nothing the mapping does. What a span keeps is counted in
// Span.Size (held.go), against Limits.Bytes and every byte bound of the
// pipeline. A log request keeps of its records only the GenAI events with
// a trace id (logs.go), consecutive records of one span as one carrier
// (of at most 1,024 records, as a span's events) whose Size is estimated the same way (its records' packed text), and is
// taken in chunks as a trace request is (CheckOTLPLogs). A trace maps at
// most 16,384 units (maxTraceEvents, quota.go): its spans' events first,
// one each, then its log records, then the messages and the JSON texts read
// from its attributes (a message one, a JSON text one per 16 of its values
// and member names, counted on the text before anything is decoded; a
// message list is decoded one element at a time); the rest are dropped and
// counted (metadata.otel.dropped_events), the trace incomplete.
// Spans keep their attributes as the engine's value model, whose arrays
// cost 16 bytes an element: at worst (an array of "{}") about 5 times its
// text.
//
// # Mapping
//
// The operation of a span is named by its convention (conventions.go):
// gen_ai.operation.name; OpenInference's openinference.span.kind (LLM a
// model call, TOOL a tool, AGENT an agent, RETRIEVER a retrieval, CHAIN
// and the rest read through); OpenLLMetry's traceloop.span.kind (agent,
// tool; workflow and task read through) or llm.request.type (chat,
// completion); the Vercel AI SDK's ai.operationId (ai.*.doGenerate and
// ai.*.doStream model calls, ai.toolCall a tool; ai.generateText and
// ai.streamText, the loop around them, read through); else the span name's
// first word.
//
//	invoke_agent                 the trace (or an agent_call step's sub_trace); agent_id from
//	                             gen_ai.agent.name, gen_ai.agent.id, agent.name, traceloop.entity.name
//	execute_tool                 tool_call: name, args and result from gen_ai.tool.name and
//	                             gen_ai.tool.call.arguments/result, tool.name and input/output.value,
//	                             ai.toolCall.name/args/result (input/output), traceloop.entity.*
//	                             (JSON objects as objects)
//	retrieval                    retrieval: args.query from input.value, result.documents from
//	                             retrieval.documents.N.document.{id,content,score}
//	chat, generate_content,      llm_call: args.model (response model, else request model), args.messages and
//	text_completion              args.prompt, result.messages, result.completion, token usage, finish
//	                             reason; metadata.cost_usd from llm.cost.total or gen_ai.usage.cost
//	anything else                transparent: its children are read in its place
//
// A model call's messages come from the first form that carries them:
// gen_ai.input.messages / gen_ai.output.messages on the span, else on its
// gen_ai.client.inference.operation.details event (a span event or a log
// record), else the deprecated gen_ai.prompt / gen_ai.completion; the
// event-per-message events (gen_ai.system.message, gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message: the input, in the order
// they came; gen_ai.choice: the output), with their fields in a log
// record's body or a span event's attributes; OpenInference's
// llm.input_messages.N.message.* / llm.output_messages.N.message.*
// (content or contents, tool_calls, tool_call_id); OpenLLMetry's
// gen_ai.prompt.N.* / gen_ai.completion.N.*; the Vercel AI SDK's
// ai.prompt.messages (else ai.prompt) and ai.response.text/toolCalls.
// Every message is normalised to the current conventions' role-and-parts
// form (normalize.go), whatever shape it came in (parts, a content string
// or content-part list, OpenAI tool_calls, Vercel and Anthropic blocks).
//
// Token usage (steps.go): result.input_tokens, output_tokens,
// cache_read_input_tokens, cache_creation_input_tokens, reasoning_tokens
// from the current names (gen_ai.usage.*, gen_ai.usage.cache_read.*,
// cache_creation.*, reasoning.output_tokens), the deprecated ones,
// OpenInference's llm.token_count.*, OpenLLMetry's and the Vercel AI SDK's;
// result.tokens is input plus output. As the current conventions define
// it, input_tokens includes the cached tokens: cache reads and writes, and
// reasoning within output, are parts of the counts and never added to them.
// Every convention read reports them so.
//
// Tool calls that no tool span made become tool_call steps of their own
// (derive.go), marked metadata.derived = "messages". A message whose only
// text is the JSON of a list of messages or Responses API items is read as
// that list (normalize.go).
//
// Steps are in order of start time, then end time (SDKs that record
// milliseconds start a tool span and the next model call in the same
// millisecond: the one that ended first came first), then the order the
// spans arrived in; derived tool steps come right after the model call that
// asked for them, in message order.
//
// Deprecated names are read when the current one is absent, with one
// warning per name per process ([Warnings]): gen_ai.system,
// gen_ai.usage.prompt_tokens and completion_tokens, gen_ai.prompt and
// gen_ai.completion (as attributes, or on the gen_ai.content.* events that
// carried them).
//
// # Decisions where the conventions and the spec are silent
//
//   - The trace's own agent is the one outermost invoke_agent span; with
//     none or several, each outermost agent is an agent_call step. A span
//     whose parent is not in the trace counts as a top span.
//   - A sub_trace's trace_id is "<trace id>-<agent span id>", its
//     parent_trace_id the enclosing trace's id. Below spec §7's five levels,
//     an invoke_agent is an agent_call step without sub_trace and its spans
//     are read in its place, so the trace still validates.
//   - output always carries status ("ok", or "error" when the agent span's
//     status is ERROR), so it is never empty (spec §7); output.message is the
//     agent's last output message, else the last llm_call's completion;
//     input.user_message the last user message of the agent's input, else of
//     the first llm_call's.
//   - metadata: latency_ms from the agent span's times (milliseconds, exact
//     to the nanosecond), timestamp its start (RFC 3339, UTC), model the first
//     llm_call's, total_tokens their sum, cost_usd the sum of the steps'
//     costs (exact decimals), and "otel": trace_id, spans, why it closed,
//     content_captured, service_name, incomplete, dropped_spans,
//     log_records and unjoined_log_records (records whose span is not in
//     the trace), and sources: for each of content, model, tokens,
//     tool_calls and cost, the conventions and deliveries it came from
//     ("openinference/span-attributes", "gen_ai-events/log-records", …).
//   - Content is captured when the messages, whatever form they came in,
//     carry some text, tool arguments or tool result: with capture off the
//     event conventions still send events (and the operation-details event
//     its message attributes) without content. Arguments and results on
//     tool spans are not message content. Trace.TokensCaptured,
//     CostCaptured and ToolsCaptured say the same of token usage, cost and
//     tool calls (known from a tool span, or from the messages); a check
//     whose input is absent is skipped, naming what was looked for
//     ([LookedFor]).
//   - A log record is joined to the span its spanId names; one whose span
//     is not in the trace (or that names none) is counted, not read. A
//     record re-delivered (the same text) is held once.
//
// # Assembly and its bounds
//
// [Assembler] holds at most Limits.OpenTraces traces, Limits.SpansPerTrace
// spans each (further spans are counted and dropped) and Limits.Bytes in
// all: each span's Size, an estimate of the memory the decoded span holds
// (held.go, checked against the heap by TestHeldEstimate), and each
// trace's own bookkeeping. A trace closes Limits.Grace after its root span (no
// parent) arrives, or after Limits.Idle without a new span; past a bound the
// least recently touched trace is closed early. A trace closed early, with
// spans dropped, or never given a root is evaluated and marked Incomplete,
// never dropped. A span whose id the trace already holds is a re-delivery
// (at-least-once transports) and is held once. Time is the caller's: [Feed]
// uses the latest span end seen (event time) for files, which makes the
// grouping a pure function of the input, and the wall clock for live
// streams. [Feed] hands closed traces out one at a time (Feed.Next), mapping
// each only when it is taken, so an item that closes thousands of traces
// holds their spans, not thousands of mapped traces.
//
// # Memory per request
//
// An OTLP request is taken whole or not at all, in bounded memory however
// many spans it carries ([CheckOTLP], [CheckOTLPProto], [Request]): it is
// decoded once to check it, keeping the spans of its first chunk (1 MiB of
// Size), and, when there is more, decoded again chunk by chunk as the
// consumer takes them ([Reader.Each] does the same for a long OTLP/JSON
// line). A trace assembled from spans is written as JSON for evaluation by
// [AppendJSON], encoding/json's bytes without reflection; short strings
// decoded from protobuf (keys, names, string and integer values) are
// interned in fixed tables, held boxed as the values they are.
//
// # Late spans
//
// A closed trace's spans are kept for Limits.Idle after it closes (their
// bytes count against Limits.Bytes, at most a quarter of it, and kept
// traces go first when it is reached; an evicted trace's are not kept). A span arriving meanwhile
// opens the trace again with all of them (a span id it holds is a
// re-delivery): it closes after Limits.Grace and is handed over as a new
// verdict superseding the first (Group.Prior). After that, the verdicts of
// the last Limits.Remember closed traces are remembered (and, through
// Assembler.Known, those the caller recorded before a restart): a trace
// made of later spans is handed over TooLate, to be marked, not judged.
// With each remembered verdict go the ids of the spans it judged (and of
// those that came too late after it; of a log carrier its key, so new
// records of a judged span are late, not re-deliveries), at most
// DefaultRememberSpans in all,
// the oldest traces' going first: a span among them is a re-delivery (an
// exporter's retry after the spans were let go), counted in Duplicates,
// not a late span. Known verdicts carry no ids: after a restart, a span
// sent again once its trace's spans were let go reads as late.
//
// Spans only come in input order, so a verdict is told by the last input
// item it judged and how many spans (Prior): after a restart reads input
// again, a trace whose spans are exactly those its recorded verdict judged
// is not evaluated again (its spans are kept as if it had just closed),
// a part of one is dropped, and later spans make a new verdict (with all
// the judged ones) or a too-late one (with a part only). settle.go's decide
// has the table; TestLateSpans checks each row.
//
// Each handed-over trace carries a [Hold] on the input items its spans came
// in: released by the caller once the verdict is recorded and by the
// assembler once the spans are let go, it then tells Assembler.Settle, and
// the caller's checkpoint may pass those items.
package ingest
