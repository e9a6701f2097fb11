// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace dimscope {

// What a torch version's torch.export takes, as far as SpecScript's dialects need it.
// The version is the export runtime's (the worker's hello answer in the GUI,
// `dimscope-cli spec --torch-version`); empty when not known. Each answer is nullopt
// where dimscope does not know it: the script then checks at run time.
// Known: torch 2.6 (tested) has neither; torch 2.9 and later (2.14 tested) have both;
// the features came during 2.7/2.8 development, so those two are left to the run-time check.
class TorchFeatures
{
public:
    explicit TorchFeatures(const QString &version = QString());

    QString version() const { return m_version; }
    // Dim.DYNAMIC(min=…, max=…) and Dim.AUTO(…).
    std::optional<bool> hintsTakeBounds() const { return known(); }
    // torch.export.AdditionalInputs.
    std::optional<bool> hasAdditionalInputs() const { return known(); }

private:
    std::optional<bool> known() const;

    QString m_version;
    int m_major = -1;
    int m_minor = -1;
};

} // namespace dimscope
