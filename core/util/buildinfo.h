// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// Versions dimscope was built with, for --version and Help > About.
struct BuildInfo {
    static QString dimscopeVersion();
    static QString qtVersion();
    // The LibTorch the tensor engine plugin was built against (CMake's Torch_VERSION),
    // known without loading it; TensorEngine's libtorchVersion() is the loaded one's.
    static QString libtorchVersion();
    // The source tree this binary was built from; the runtime looks there for
    // python/ and scripts/torch-python when it runs from the build tree.
    static QString sourceDir();
};

} // namespace dimscope
