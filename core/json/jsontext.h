// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace dimscope::jsontext {

// Small helpers for the hand-written JSON of docs/spec-format.md: the documents are
// written in a fixed layout (so that read-then-write gives the same bytes) and some
// of their objects keep their key order, which QJsonObject does not.

// `"text"` with JSON escapes.
QString quote(const QString &text);

// One value as compact JSON text: 3.5, true, null, "text", [1,2], {"a":1}.
QString valueText(const QJsonValue &value);

// The keys, in document order, of the object that is the value of `member` in the
// top-level object of `json` (which must already be valid JSON). Empty when absent.
QStringList memberKeyOrder(const QByteArray &json, const QString &member);

// The raw text of the value of `member` in the top-level object of `json` (which must
// already be valid JSON), so that a nested document keeps its key order. Empty when absent.
QByteArray memberText(const QByteArray &json, const QString &member);

// "line L, column C" for a byte offset.
QString position(const QByteArray &json, int offset);

} // namespace dimscope::jsontext
