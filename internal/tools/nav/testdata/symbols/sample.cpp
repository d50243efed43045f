namespace geo {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override;
private:
    double r_;
};

double Circle::area() const {
    return 3.14159 * r_ * r_;
}

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

using Radius = double;

}  // namespace geo
