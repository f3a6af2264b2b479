// A destructive action behind the console's "are you sure?" dialog (DangerConfirmDialog): the
// record asked about, the call in flight, and what happens after. `useConfirmTarget` holds the
// record and the refusal for any call; `useConfirmedDelete` runs Refine's useDelete on it.
import { type BaseRecord, type HttpError, type OpenNotificationParams, useDelete } from "@refinedev/core";
import { useState } from "react";

export function useConfirmTarget<T>() {
  const [target, setTarget] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const close = () => setTarget(null);
  return {
    target,
    ask: (record: T) => {
      setError(null);
      setTarget(record);
    },
    close,
    fail: setError,
    /** The dialog's props: open while a record is asked about; `run` is the confirmed action. */
    dialog: (pending: boolean, run: (record: T) => void) => ({
      open: target !== null,
      pending,
      error,
      onCancel: close,
      onConfirm: () => {
        if (target !== null) run(target);
      },
    }),
  };
}

type Options<T> = {
  resource: string;
  id: (record: T) => string;
  meta?: Record<string, unknown>;
  successNotification?: false | ((record: T) => OpenNotificationParams);
  errorNotification?: false | ((error: HttpError | undefined, record: T) => OpenNotificationParams);
  /** The refusal shown in the dialog, which stays open (else a refusal closes it, after its notification). */
  failed?: string;
  /** Keep the dialog open after a refusal that its notification reports. */
  stayOnError?: boolean;
  onDeleted?: (record: T) => void;
};

export function useConfirmedDelete<T>(options: Options<T>) {
  const { resource, id, meta, successNotification = false, errorNotification = false } = options;
  const confirm = useConfirmTarget<T>();
  const { mutate, mutation } = useDelete<BaseRecord, HttpError>();
  const run = (record: T) =>
    mutate(
      {
        resource,
        id: id(record),
        meta,
        successNotification: successNotification && (() => successNotification(record)),
        errorNotification: errorNotification && ((error) => errorNotification(error, record)),
      },
      {
        onSuccess: () => {
          confirm.close();
          options.onDeleted?.(record);
        },
        onError: (error) => {
          if (options.failed !== undefined) confirm.fail(error.message || options.failed);
          else if (!options.stayOnError) confirm.close();
        },
      },
    );
  return { ...confirm, dialog: confirm.dialog(mutation.isPending, run) };
}
