// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tensor engine: the tensor math dimscope does (leaf statistics), behind a narrow
// interface, implemented with LibTorch in a plugin (core/torchengine,
// libdimscope_torchengine.so) that is loaded only when the first statistic is asked
// for. Nothing else in dimscope links LibTorch, so a start that needs no tensor math
// (--help, inspect, analyze, export, opening a capture in the GUI) never maps its
// ~290 shared libraries.

#include "capture/dtype.h"
#include "capture/tensorstats.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace dimscope {

// One tensor as the engine sees it: its element type and count, and a reader of its
// bytes (a chunk at a time, so the engine never needs the whole tensor in memory).
struct TensorBytes {
    DType dtype = DType::F32;
    int elementSize = 4;
    qint64 numel = 0;
    // Copies bytes [begin, begin + count) of the tensor into `out`; false with *error
    // (already naming the leaf) when they cannot be read (the file shrank).
    std::function<bool(qint64 begin, qint64 count, void *out, QString *error)> read;
};

// What the plugin implements. Called from any thread, concurrently: implementations
// keep no state between calls.
class TensorEngineInterface
{
public:
    virtual ~TensorEngineInterface() = default;
    // The LibTorch version the plugin runs on, e.g. "1.13.0".
    virtual QString libtorchVersion() const = 0;
    // The statistics of TensorStats (tensorstats.h) over every element. Never throws:
    // failures (a read error, LibTorch's own) come back in TensorStats::error.
    virtual TensorStats statistics(const TensorBytes &tensor, const TensorStatsOptions &options) const = 0;
};

// Finds and loads the plugin, once per process, on the first get() (or preload()).
// Where it looks, first found wins:
//   1. $DIMSCOPE_TORCH_ENGINE, when set: that file and no other (tests, packagers);
//   2. <executable's folder>/../lib/dimscope/ (an installed dimscope: bin/ and lib/);
//   3. <executable's folder>/ (a relocated build);
//   4. the build tree's plugin folder, for programs run from the build tree.
// A failed load is kept too: every statistic then reports it, the rest of dimscope is
// unaffected.
class TensorEngine
{
public:
    // The loaded engine, loading it first if no one has tried yet (blocks for the
    // load: about a second for LibTorch). nullptr with *error naming the plugin path
    // and the loader's message when it cannot be loaded. Thread-safe.
    static const TensorEngineInterface *get(QString *error = nullptr);
    // Whether the plugin is loaded now (never loads it).
    static bool isLoaded();
    // Starts loading it on the global thread pool and returns at once, e.g. after the
    // GUI's first paint, so that the first statistic does not wait for LibTorch.
    static void preload();
    // The file get() loads or loaded: $DIMSCOPE_TORCH_ENGINE when set, else the first
    // candidate that exists (the first candidate when none does).
    static QString pluginPath();
    // Every place searched when $DIMSCOPE_TORCH_ENGINE is not set, in order.
    static QStringList candidatePaths();
    // Loads the plugin at `path` without keeping it as the process's engine (a valid
    // plugin stays mapped: plugins are never unloaded). For tests and diagnostics.
    static const TensorEngineInterface *loadFrom(const QString &path, QString *error);
};

} // namespace dimscope

// The interface's id: a plugin built against another version of the interface is
// refused with a message instead of being called with the wrong layout.
#define DIMSCOPE_TENSOR_ENGINE_IID "org.dimscope.TensorEngineInterface/1"
Q_DECLARE_INTERFACE(dimscope::TensorEngineInterface, DIMSCOPE_TENSOR_ENGINE_IID)
