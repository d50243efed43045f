module Shop
  # Cart holds items.
  class Cart
    TAX = 0.2

    def initialize
      @items = []
    end

    def add(item)
      if item
        @items << item
      end
      self
    end

    def empty? = @items.empty?

    def self.build; new; end
  end
end
