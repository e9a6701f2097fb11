// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotpanel.h"

#include "projectdocument.h"
#include "settingskeys.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace dimscope {

PlotPanel::PlotPanel(QWidget *parent)
    : QWidget(parent), m_dimBox(new QComboBox(this)), m_plot(new QCustomPlot(this)), m_title(new QLabel(this))
{
    setObjectName(QStringLiteral("plotPanel"));
    m_dimBox->setObjectName(QStringLiteral("plotDimension"));
    m_dimBox->setToolTip(tr("Dimension of the selected leaf to plot"));
    connect(m_dimBox, qOverload<int>(&QComboBox::activated), this, &PlotPanel::showDimension);
    auto *save = new QToolButton(this);
    save->setObjectName(QStringLiteral("plotSave"));
    save->setText(tr("Save…"));
    save->setToolTip(tr("Save the plot as PNG or PDF"));
    connect(save, &QToolButton::clicked, this, &PlotPanel::saveInteractively);
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset view"));
    connect(reset, &QToolButton::clicked, this, [this] {
        m_plot->rescaleAxes();
        replot();
    });

    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag | QCP::iSelectPlottables);
    m_plot->setMinimumHeight(140);
    m_plot->xAxis->setLabel(tr("call"));
    m_plot->yAxis->setLabel(tr("size"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    QCPGraph *graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsLine);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    // Violating calls: red crosses over the line.
    QCPGraph *bad = m_plot->addGraph();
    bad->setLineStyle(QCPGraph::lsNone);
    bad->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(QColor(0xd3, 0x2f, 0x2f), 2), Qt::NoBrush, 11));
    bad->setName(tr("violating calls"));
    // The Dim's [min, max]: a translucent band behind the values.
    m_bandRect = new QCPItemRect(m_plot);
    m_bandRect->setLayer(QStringLiteral("background"));
    m_bandRect->setClipToAxisRect(true);
    m_bandRect->setSelectable(false);
    m_bandRect->setVisible(false);
    m_title->setObjectName(QStringLiteral("plotTitle"));
    m_title->setTextFormat(Qt::RichText);
    applyPalette();

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Dimension:"), this));
    bar->addWidget(m_dimBox, 1);
    bar->addWidget(m_title, 1);
    bar->addWidget(reset);
    bar->addWidget(save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::setLoaded(const LoadedCapturePtr &loaded)
{
    m_loaded = loaded;
    showNode(-1);
}

void PlotPanel::showNode(int node)
{
    m_node = node;
    m_dimBox->clear();
    const bool valid = m_loaded && node > 0 && node < m_loaded->tree.nodes().size()
                       && m_loaded->tree.node(node).kind == NodeKind::Tensor;
    int first = -1;
    if (valid) {
        const ShapeSummary &shape = m_loaded->shapes.at(node);
        for (int d = 0; d < shape.rank(); ++d) {
            m_dimBox->addItem(tr("dim %1: %2").arg(d).arg(shape.parts.at(d)));
            if (first < 0 && shape.dynamic.at(d))
                first = d;
        }
        if (first < 0 && shape.rank() > 0)
            first = 0;
    }
    m_dimBox->setEnabled(m_dimBox->count() > 0);
    showDimension(first);
}

void PlotPanel::setDocument(ProjectDocument *document)
{
    m_document = document;
    connect(document, &ProjectDocument::captureChanged, this, [this] { setLoaded(m_document->loaded()); });
    connect(document, &ProjectDocument::validationChanged, this, &PlotPanel::redraw);
}

void PlotPanel::redraw()
{
    if (!m_dimName.isEmpty() && m_document && m_document->constraints().dim(m_dimName))
        showDim(m_dimName);
    else
        showDimension(m_dim);
}

void PlotPanel::showDimension(int dim)
{
    m_dim = dim;
    m_dimName.clear();
    m_points.clear();
    QString label, assigned;
    QSet<int> violating;
    if (m_loaded && m_node > 0 && dim >= 0) {
        m_dimBox->setCurrentIndex(dim);
        const AlignedNode &n = m_loaded->tree.node(m_node);
        for (int c = 0; c < m_loaded->tree.callCount(); ++c) {
            const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, n, c);
            if (leaf && leaf->isTensor() && dim < leaf->shape.size())
                m_points.append(QPointF(c, double(leaf->shape.at(dim))));
        }
        label = QStringLiteral("%1 dim %2").arg(n.path).arg(dim);
        if (m_document) {
            const DimAssignment a = m_document->constraints().assignment(n.path, dim);
            if (a.isNamed())
                assigned = a.dim;
            for (const ConstraintViolation &v : m_document->validation().violations)
                if (v.path == n.path && v.dim == dim && v.call >= 0)
                    violating.insert(v.call);
        }
    }
    draw(label, assigned, violating);
}

void PlotPanel::showDim(const QString &name)
{
    if (name.isEmpty() || !m_document || !m_document->constraints().dim(name)) {
        showDimension(m_dim);
        return;
    }
    m_dimName = name;
    m_points.clear();
    const ShapeTable &table = m_document->table();
    bool found = false;
    for (const LeafConstraint &leaf : m_document->constraints().leaves()) {
        const int li = table.indexOf(leaf.path);
        for (int d = 0; li >= 0 && !found && d < leaf.dims.size() && d < table.leaf(li).rank; ++d) {
            if (!leaf.dims[d].isNamed() || leaf.dims[d].dim != name)
                continue;
            found = true;
            const qint64 *row = table.row(table.leaf(li).firstDim + d);
            for (int c = 0; c < table.callCount(); ++c)
                if (row[c] >= 0)
                    m_points.append(QPointF(c, double(row[c])));
        }
        if (found)
            break;
    }
    QSet<int> violating;
    for (const ConstraintViolation &v : m_document->validation().violations)
        if (v.dimName == name && v.call >= 0)
            violating.insert(v.call);
    draw(tr("Dim %1").arg(name), name, violating);
}

void PlotPanel::draw(const QString &name, const QString &assignedDim, const QSet<int> &violating)
{
    m_band.reset();
    m_violating.clear();
    QVector<double> x, y, bx, by;
    for (const QPointF &p : std::as_const(m_points)) {
        x.append(p.x());
        y.append(p.y());
        if (violating.contains(int(p.x()))) {
            bx.append(p.x());
            by.append(p.y());
            m_violating.append(int(p.x()));
        }
    }
    m_plot->graph(0)->setName(name);
    m_plot->graph(0)->setData(x, y, true);
    m_plot->graph(1)->setData(bx, by, true);

    // The effective range of the assigned Dim (a derived Dim's follows its root's).
    QString rangeText;
    if (m_document && !assignedDim.isEmpty()) {
        if (const DimDecl *d = m_document->constraints().dim(assignedDim)) {
            const DimDecl *root = d->isDerived() ? m_document->constraints().dim(d->root) : d;
            if (root) {
                const qint64 a = d->isDerived() ? d->a : 1, b = d->isDerived() ? d->b : 0;
                const double lo = root->min ? double(a * *root->min + b) : 0.0;
                const double hi = root->max ? double(a * *root->max + b) : qInf();
                m_band = qMakePair(lo, hi);
                rangeText = QStringLiteral("[%1, %2]").arg(lo).arg(root->max ? QString::number(hi) : QStringLiteral("∞"));
            }
        }
    }
    m_bandRect->setVisible(bool(m_band));
    if (m_band) {
        m_bandRect->topLeft->setCoords(-1e9, std::isinf(m_band->second) ? 1e15 : m_band->second);
        m_bandRect->bottomRight->setCoords(1e9, m_band->first);
    }
    QString title;
    if (!assignedDim.isEmpty())
        title = tr("<b>%1</b> %2").arg(assignedDim.toHtmlEscaped(), rangeText);
    if (!m_violating.isEmpty())
        title += tr(" · <span style='color:#d32f2f'>%n violating call(s)</span>", nullptr, m_violating.size());
    m_title->setText(title);
    m_dimBox->setVisible(m_dimName.isEmpty());

    m_plot->rescaleAxes();
    // Constant values would collapse the axis to a line; give them room. The band's
    // finite bounds stay in view so that a violation is visibly outside it.
    QCPRange yr = m_plot->yAxis->range();
    if (m_band) {
        yr.lower = qMin(yr.lower, m_band->first);
        if (!std::isinf(m_band->second))
            yr.upper = qMax(yr.upper, m_band->second);
    }
    m_plot->yAxis->setRange(qMin(0.0, yr.lower), yr.upper + qMax(1.0, yr.size() * 0.1));
    const QCPRange xr = m_plot->xAxis->range();
    m_plot->xAxis->setRange(xr.lower - 0.5, xr.upper + 0.5);
    replot();
}

bool PlotPanel::saveTo(const QString &path)
{
    if (path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return m_plot->savePng(path);
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return m_plot->savePdf(path);
    return false;
}

void PlotPanel::saveInteractively()
{
    QSettings settings;
    const QString folder = settings.value(settings::LastPlotFolder).toString();
    QString path = QFileDialog::getSaveFileName(this, tr("Save plot"), folder, tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    settings.setValue(settings::LastPlotFolder, QFileInfo(path).absolutePath());
    saveTo(path);
}

void PlotPanel::replot() { m_plot->replot(QCustomPlot::rpQueuedReplot); }

void PlotPanel::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = pal.color(QPalette::Mid);
    m_plot->setBackground(pal.color(QPalette::Base));
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    }
    m_plot->graph(0)->setPen(QPen(pal.color(QPalette::Highlight), 2));
    QColor band = pal.color(QPalette::Highlight);
    band.setAlpha(40);
    m_bandRect->setBrush(band);
    band.setAlpha(110);
    m_bandRect->setPen(QPen(band, 1, Qt::DashLine));
    replot();
}

void PlotPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

} // namespace dimscope
