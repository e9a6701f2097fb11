// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/inferenceresult.h"

namespace dimscope {

bool InferenceResult::hasErrors() const
{
    for (const InferenceMessage &m : messages) {
        if (m.severity == InferenceMessage::Severity::Error)
            return true;
    }
    return false;
}

QStringList InferenceResult::texts(InferenceMessage::Severity severity) const
{
    QStringList out;
    for (const InferenceMessage &m : messages) {
        if (m.severity == severity)
            out << m.text;
    }
    return out;
}

} // namespace dimscope
