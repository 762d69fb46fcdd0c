import { Fragment } from "react";
import { fieldParts } from "../fieldName";

/** FieldName shows a field's name or path that wraps between its words
 * (fieldParts), never inside one that fits its column. */
export function FieldName({ name }: { name: string }) {
  return (
    <span data-testid="field-name">
      {fieldParts(name).map((p, i) => <Fragment key={i}>{i > 0 && <wbr />}{p}</Fragment>)}
    </span>
  );
}
