// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"
#include "inference/shapetable.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// A finding of ShapeInference. Errors make the proposal unusable (structure or rank
// changes); warnings need the user's attention (0/1 sizes, single observations);
// notes explain (relations torch.export cannot express, guesses not taken).
struct InferenceMessage {
    enum class Severity { Error, Warning, Note };
    Severity severity = Severity::Note;
    QString text;
    QString dim;          // the Dim concerned, if any
    QStringList leaves;   // the leaves concerned
    QVector<int> calls;   // the calls concerned
};

// One dimension of one tensor leaf as captured.
struct DimObservation {
    QString path;
    int leaf = -1;          // index in ShapeTable
    int dim = 0;
    QVector<qint64> values; // one per call, -1 where the call does not have the leaf
    bool dynamic = false;
    QString dimName;        // the proposed Dim; "auto" for Dim.AUTO; empty when static
};

// Leaf dimensions inference proposed as Dim.AUTO because they are 0 or 1 in the
// example call: the name the group would have as a Dim (the one its warning quotes)
// and its dim rows in the table.
struct AutoGroup {
    QString name;
    QVector<int> rows; // ascending
};

struct InferenceResult {
    ConstraintSet constraints;
    ShapeTable table;
    QVector<DimObservation> observations;
    QVector<InferenceMessage> messages;
    QVector<AutoGroup> autoGroups;
    int exampleCall = 0;

    bool hasErrors() const;
    QStringList texts(InferenceMessage::Severity severity) const;
};

} // namespace dimscope
