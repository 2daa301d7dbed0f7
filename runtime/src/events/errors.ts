// Errors of the events area.
import { SlicekitError } from '../errors.js';

/** An event cannot be stored: empty name, or a payload JSON cannot represent. */
export class EventPayloadError extends SlicekitError {
  override name = 'EventPayloadError';
  readonly eventName: string;

  constructor(eventName: string, message: string, options?: { cause?: unknown }) {
    super('event_payload_invalid', message, options);
    this.eventName = eventName;
  }
}

/** The event bus options break a rule; the message lists every broken rule. */
export class EventBusOptionsError extends SlicekitError {
  override name = 'EventBusOptionsError';

  constructor(message: string) {
    super('event_bus_options_invalid', message);
  }
}
