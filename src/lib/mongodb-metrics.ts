/**
 * MongoDB command durations and connection-pool activity, from the driver's monitoring events, into
 * an app's metrics. Command events need the client connected with `monitorCommands: true`
 * (lib/database.ts). Attached by server.ts after connecting (or by a test); returns the detach.
 */
import type { mongo } from 'mongoose';
import type { AppMetrics } from './metrics';

export function monitorMongoClient(client: mongo.MongoClient, { mongodb }: AppMetrics): () => void {
  let checkedOut = 0;
  const listeners = {
    commandSucceeded: (event: mongo.CommandSucceededEvent) =>
      mongodb.commandDuration.observe({ command: event.commandName, outcome: 'succeeded' }, event.duration / 1000),
    commandFailed: (event: mongo.CommandFailedEvent) =>
      mongodb.commandDuration.observe({ command: event.commandName, outcome: 'failed' }, event.duration / 1000),
    connectionCreated: () => mongodb.connectionsCreated.inc(),
    connectionClosed: (event: mongo.ConnectionClosedEvent) => mongodb.connectionsClosed.inc({ reason: event.reason }),
    connectionCheckedOut: (event: mongo.ConnectionCheckedOutEvent) => {
      checkedOut += 1;
      mongodb.connectionsCheckedOut.set(checkedOut);
      if (typeof event.durationMS === 'number') mongodb.checkoutWait.observe(event.durationMS / 1000);
    },
    // Attached while idle (after connecting, before listening): a check-in of a connection checked out
    // before that is the only way the count could go below zero.
    connectionCheckedIn: () => {
      checkedOut = Math.max(0, checkedOut - 1);
      mongodb.connectionsCheckedOut.set(checkedOut);
    },
    connectionCheckOutFailed: (event: mongo.ConnectionCheckOutFailedEvent) =>
      mongodb.checkoutFailures.inc({ reason: String(event.reason) }),
  };
  for (const [event, listener] of Object.entries(listeners))
    client.on(event as keyof typeof listeners, listener as never);
  return () => {
    for (const [event, listener] of Object.entries(listeners))
      client.off(event as keyof typeof listeners, listener as never);
  };
}
