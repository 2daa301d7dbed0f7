// An entity's action (`POST /v1/<resource>/{id}/<segment>`) on its show page: a button named after
// it, or a small form when it takes parameters. It waits for the answer (a second click does
// nothing meanwhile) and is disabled, with the reason beside it, when a precondition does not hold.
// It sends the ETag the page read the row with as If-Match: a row changed since is refused (412)
// with the edit form's message (row-route.ts).
import { Children, isValidElement, useId, type ReactNode } from 'react';
import { Button, Form, SaveButton } from 'react-admin';
import type { ActionParams } from '@slicekit/runtime/admin';
import { useRowRoute } from './row-route.js';

export interface ActionButtonProps {
  /** The button's name: `Approve`. */
  label: string;
  /** The route's last segment: `approval`. */
  segment: string;
  verb?: ActionParams['verb'];
  /** The spec's `when`: the action is allowed only when each field holds one of its values. */
  when?: Record<string, (string | boolean)[]>;
  /** The inputs of its parameters; none: a plain button. */
  children?: ReactNode;
}

/** Why the action is refused for `record`, or undefined when its preconditions hold. */
function refusal(
  record: Record<string, unknown>,
  when: ActionButtonProps['when'] = {},
): string | undefined {
  const unmet = Object.entries(when).filter(
    ([field, values]) => !values.includes(record[field] as string),
  );
  if (unmet.length === 0) return undefined;
  return `Allowed only when ${unmet.map(([field, values]) => `${field} is ${values.join(' or ')}`).join(' and ')}`;
}

/**
 * The form's values of its own inputs: the form starts from the row (an update's inputs show the
 * current values), and the route takes its parameters alone.
 */
function parameters(children: ReactNode, data: Record<string, unknown>): Record<string, unknown> {
  const sources = Children.toArray(children).flatMap((child) =>
    isValidElement<{ source?: unknown }>(child) && typeof child.props.source === 'string'
      ? [child.props.source]
      : [],
  );
  return Object.fromEntries(sources.map((source) => [source, data[source]]));
}

// (No double braces in these files: the app generator renders them as Handlebars templates.)
const row = { display: 'flex', alignItems: 'center', gap: '0.5rem' } as const;

export function ActionButton({ label, segment, verb, when, children }: ActionButtonProps) {
  const { record, pending, call } = useRowRoute(label);
  const reasonId = useId();
  if (!record) return null;
  const reason = refusal(record, when);
  const explained = reason ? { 'aria-describedby': reasonId } : {};
  return (
    <section style={row}>
      {children ? (
        // The form shows the field errors `call` answers beside their inputs.
        <Form
          onSubmit={(data: Record<string, unknown>) =>
            call({ segment, verb, data: parameters(children, data) })
          }
        >
          {children}
          <SaveButton
            label={label}
            icon={<></>}
            alwaysEnable={!reason && !pending}
            disabled={Boolean(reason) || pending}
            {...explained}
          />
        </Form>
      ) : (
        <Button
          label={label}
          onClick={() => void call({ segment, verb })}
          disabled={Boolean(reason) || pending}
          variant="outlined"
          {...explained}
        />
      )}
      {reason ? <span id={reasonId}>{reason}</span> : null}
    </section>
  );
}
