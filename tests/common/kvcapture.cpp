// SPDX-License-Identifier: GPL-3.0-or-later
#include "kvcapture.h"

#include "capturebuilder.h"

#include <QStringList>

namespace dimscope::test {

Capture kvCapture(int calls, int layers, int batch, int prompt)
{
    QStringList text;
    for (int c = 0; c < calls; ++c) {
        const bool prefill = c == 0;
        const int seq = prefill ? prompt : 1;
        const int past = prefill ? 0 : prompt + c - 1;
        // Listed in signature order: input_ids, attention_mask, past_key_values, pixel_values, use_cache.
        text << QStringLiteral("input_ids=%1x%2:i64 attention_mask=%1x%3:i64").arg(batch).arg(seq).arg(past + seq)
                    + (prefill ? QStringLiteral(" past_key_values=- pixel_values=%1x3x8x8").arg(batch)
                               : QStringLiteral(" past_key_values=cache(%1:%2x4x%3x8) pixel_values=-").arg(layers).arg(batch).arg(past))
                    + QStringLiteral(" use_cache=bool(true)");
    }
    Capture capture = makeCapture(text.join(QLatin1Char('|')));
    capture.modelClass = QStringLiteral("tests.TinyDecoder");
    return capture;
}

} // namespace dimscope::test
