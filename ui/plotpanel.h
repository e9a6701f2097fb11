#pragma once

#include "models/loadedcapture.h"

#include <QWidget>

class QComboBox;
class QCustomPlot;

namespace dimscope {

// The observed value of one dimension of the selected leaf in every call; zoom and pan
// with the mouse, save as PNG or PDF, recoloured with the palette.
class PlotPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PlotPanel(QWidget *parent = nullptr);
    ~PlotPanel() override;

    void setLoaded(const LoadedCapturePtr &loaded);
    void showNode(int node);    // picks its first dynamic dim
    void showDimension(int dim);
    int dimension() const { return m_dim; }
    // (call, value) points drawn; calls without the leaf are left out.
    QVector<QPointF> points() const { return m_points; }
    // By extension: .png or .pdf. False (and nothing written) otherwise.
    bool saveTo(const QString &path);
    QCustomPlot *plot() const { return m_plot; }

private:
    void replot();
    void applyPalette();
    void saveInteractively();
    void changeEvent(QEvent *event) override;

    LoadedCapturePtr m_loaded;
    QComboBox *m_dimBox;
    QCustomPlot *m_plot;
    int m_node = -1;
    int m_dim = -1;
    QVector<QPointF> m_points;
};

} // namespace dimscope
