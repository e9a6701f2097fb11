#pragma once

#include "capture/capture.h"

#include <QAbstractItemModel>

class QAction;

// In-memory captures for the ui tests, shaped like the ones InputRecorder writes.
namespace fixture {

// Builds one call's input tree node by node; leaves get their key path from the caller.
class TreeBuilder
{
public:
    explicit TreeBuilder(dimscope::CallTree &tree) : m_tree(tree) {}
    int container(dimscope::NodeKind kind, const QStringList &keys = {}, const QString &typeName = {},
                  const QString &flavour = {});
    int tensor(const QString &path, const QVector<qint64> &shape, dimscope::DType dtype = dimscope::DType::F32);
    int scalar(const QString &path, dimscope::NodeKind kind, const QJsonValue &value);
    void add(int parent, int child);

private:
    int addNode(const dimscope::TreeNode &node);
    dimscope::CallTree &m_tree;
};

// A decoder with a DynamicCache: call 0 is the prefill (seq tokens, empty cache is
// absent: past_key_values missing), later calls decode one token with a growing cache.
// pixel_values only in call 0 (an optional input the other calls lack).
dimscope::Capture kvCapture(int calls, int layers, int batch = 2, int prompt = 5);

// One line per row, children indented by two spaces: "name | type | shape | constraint".
QString dump(const QAbstractItemModel *model, const QModelIndex &parent = {}, int depth = 0);

// Triggers `action` (which opens a QFileDialog) and answers the dialog with `path`,
// typed like a user would (selectFile() races the dialog's file system model). The
// dialog is answered from a timer inside its event loop, again while it is still up,
// and rejected after ~5 s so a slow machine cannot hang the test. Returns how many
// times it answered: 1..250 when the dialog took the file.
int answerFileDialog(QAction *action, const QString &path);

} // namespace fixture
