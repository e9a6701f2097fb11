// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/torchfeatures.h"

#include <QRegularExpression>

namespace dimscope {

TorchFeatures::TorchFeatures(const QString &version) : m_version(version.trimmed())
{
    static const QRegularExpression re(QStringLiteral("^(\\d+)\\.(\\d+)"));
    const QRegularExpressionMatch m = re.match(m_version);
    if (m.hasMatch()) {
        m_major = m.captured(1).toInt();
        m_minor = m.captured(2).toInt();
    }
}

std::optional<bool> TorchFeatures::known() const
{
    if (m_major < 0)
        return std::nullopt;
    if (m_major > 2 || (m_major == 2 && m_minor >= 9))
        return true;
    if (m_major < 2 || m_minor <= 6)
        return false;
    return std::nullopt;
}

} // namespace dimscope
