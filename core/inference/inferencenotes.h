// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/inferenceresult.h"

#include <QHash>

namespace dimscope {

// ShapeInference's warnings and notes in the Dim names of the constraint set the user
// holds now. The messages quote the names inference gave ("'total_len' = 'seq_len' +
// 'past_len'"); the user renames, merges and reassigns afterwards, in this session or
// before the project was saved (a reopened project is inferred afresh, with the old
// names). Each inferred Dim is followed through the structure, not through an edit
// history: it becomes the Dim that the leaf dimensions it was inferred on use now.
class InferenceNotes
{
public:
    // Inferred Dim name -> its name in `current`; a Dim whose leaf dimensions no longer
    // use any named Dim is absent.
    static QHash<QString, QString> currentNames(const ConstraintSet &inferred, const ConstraintSet &current);

    // Every 'quoted' Dim name of `text` that `names` maps, replaced in one pass (a name
    // renamed to another inferred name is not renamed twice); other text is untouched.
    static QString renameQuoted(const QString &text, const QHash<QString, QString> &names);

    // `inference`'s messages with their Dim (`dim` and the quoted names) as in `current`.
    // A message about a Dim that no longer exists in `current` is left out: it is stale.
    static QVector<InferenceMessage> inCurrentNames(const InferenceResult &inference, const ConstraintSet &current);

    // `inference`'s messages about the groups it proposed as Dim.AUTO (no Dim of the set,
    // so inCurrentNames leaves them out), the Dims they quote as in `current`; `dim`
    // stays the group's inferred name (AutoDim::inferredName).
    static QVector<InferenceMessage> aboutAutoGroups(const InferenceResult &inference, const ConstraintSet &current);
};

} // namespace dimscope
