// A stand-in for the idempotency guard's request flow (reserve; 409 or replay; run; complete or
// release), used by the multi-process store tests until the real guard's registration lands.
// It follows the spec's per-request flow and nothing more.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IdempotencyKeyStore } from '../../../../runtime/src/idempotency/store.js';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';

export function interimGuard(store: IdempotencyKeyStore, endpoint: string): RequestHandler {
  return async function guard(req: Request, res: Response, next: NextFunction) {
    const key = req.get('x-idempotency-key');
    if (!key) {
      res.status(400).json({ title: 'missing key' });
      return;
    }
    const info = conformanceKeyInfo(key, { method: req.method, endpoint });
    let check;
    try {
      check = await store.isKeyProcessed(info);
    } catch (error) {
      next(error);
      return;
    }
    // ConflictResponse, the guard's default: every duplicate gets 409, in flight or completed.
    if (check.processed) {
      res.status(409).json({ title: 'Conflict' });
      return;
    }
    const reservation = check.reservation;
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const bytes = Buffer.isBuffer(body)
        ? body
        : body === undefined
          ? null
          : Buffer.from(String(body));
      const response = {
        statusCode: res.statusCode,
        body: bytes,
        contentType: String(res.get('content-type') ?? 'application/json'),
        createdAt: new Date(),
        expiresAt: null,
      };
      const settle =
        res.statusCode >= 200 && res.statusCode <= 299
          ? store.markKeyAsProcessed(info, response, reservation)
          : store.releaseReservation(info, reservation);
      settle.catch(() => undefined).finally(() => send(body));
      return res;
    };
    next();
  };
}
