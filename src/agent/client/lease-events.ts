// A lease's live event stream (docs/reference/http-api.md#get-apiv1leasesidevents--live-lease-events) read as typed events.
import { type LeaseEvent, LeaseEventSchema } from "../../contract/lease-events.js";

/**
 * The events of a `text/event-stream` body, in order. Comment lines (the server's pings) and events
 * this client does not know (a newer server's) are skipped; the iteration ends with the stream.
 */
export async function* readLeaseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<LeaseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): LeaseEvent | null {
  let name: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (!name || data.length === 0) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(data.join("\n"));
  } catch {
    return null;
  }
  const parsed = LeaseEventSchema.safeParse({ event: name, data: payload });
  return parsed.success ? parsed.data : null;
}
